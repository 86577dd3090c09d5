package pgstore

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// WorkerStates counts worker sessions by what became of their worker, as
// qinglong_workers reports them: live and taking work, live and draining,
// and, of the sessions expired within a recent window (no heartbeat for a
// session lease, and no end of the session), those whose worker came back
// or may still (Expired) and those whose worker did not (Lost).
type WorkerStates struct {
	Active, Draining, Expired, Lost int
}

// WorkerStates reads the live sessions per state and the sessions expired
// within window of database time, split by whether their worker
// registered again within its grace of the expiry (lost once the grace
// passed without it), those two counts cut at limit together, in one
// statement (sql/monitor.sql, MonitorWorkerStates). Sessions of revoked
// credentials are not counted.
//
// The grace is how long a worker that is alive may take to register
// again: after a database outage longer than a run lease every session
// expires and a starting replica holds its worker ingress closed for one
// run lease (the replica's holdForWorkers); the worker then hears its
// session expired at its next heartbeat or pull, which a session lease
// covers with room for its retries. The run lease is the one the session
// was registered under (pg-0055), so replicas with different --run-lease
// agree; runLease, the asking replica's, stands in for a session opened
// before that was recorded.
func (r *Runtime) WorkerStates(ctx context.Context, window, runLease time.Duration, limit int) (WorkerStates, error) {
	var c WorkerStates
	if limit < 1 || limit > schedule.MonitorLimit {
		return c, qlerror.New(qlerror.Invalid, "monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	if runLease < MinRunLease || runLease > MaxRunLease || runLease%time.Millisecond != 0 {
		return c, qlerror.New(qlerror.Invalid, "run lease %s is outside %s–%s (whole milliseconds)", runLease, MinRunLease, MaxRunLease)
	}
	if longest := MaxRunLease + workerproto.SessionLease; window < longest {
		return c, qlerror.New(qlerror.Invalid, "expired-session window %s is shorter than the longest grace a worker has to come back, %s", window, longest)
	}
	err := r.pool.QueryRow(ctx, sqlMonitorWorkerStates, window.Milliseconds(), limit, runLease.Milliseconds(),
		workerproto.SessionLease.Milliseconds()).Scan(&c.Active, &c.Draining, &c.Expired, &c.Lost)
	if err != nil {
		return c, mapErr(err, "counting worker sessions by state")
	}
	return c, nil
}
