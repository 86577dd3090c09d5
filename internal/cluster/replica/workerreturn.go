package replica

import (
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// workerReturnGrace is how long after its session expired a worker that
// is alive may take to register again, so qinglong_workers counts it lost
// only past it: after a database outage longer than a run lease every
// session expires and a starting replica holds its worker ingress closed
// for one run lease (holdForWorkers); a worker then hears its session
// expired at its next heartbeat or pull, which a session lease covers
// with room for its retries (they pause at most 2 s). A worker really
// gone is counted once this has passed, and for the rest of
// metrics.WorkerExpiredWindow.
func workerReturnGrace(runLease time.Duration) time.Duration {
	return runLease + workerproto.SessionLease
}
