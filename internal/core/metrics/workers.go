package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Worker states, as qinglong_workers labels them (cluster).
const (
	WorkerActive   = "active"
	WorkerDraining = "draining"
	WorkerExpired  = "expired"
	WorkerLost     = "lost"
)

// WorkerStateNames lists every worker state, each exported from the first
// reading on, zeros included: a series that first appears at 1 is one
// changes() and increase() never see change.
var WorkerStateNames = []string{WorkerActive, WorkerDraining, WorkerExpired, WorkerLost}

// WorkerExpiredWindow is how far back, in database time, the expired and
// lost states count the sessions the sweep expired: an alert on a lost
// worker fires for that long after the loss, whether or not the worker
// came back later. It is the time someone has to see the alert, not a
// property of the cluster, so it follows no lease: a window near the 45 s
// session lease could open and close between two scrapes and the alert
// never fire, and a longer memory is Prometheus's to keep
// (max_over_time).
const WorkerExpiredWindow = time.Hour

// workerStates is qinglong_workers, read with the other store reads of
// stateCollector (its cache, its read failures) and under its lock.
type workerStates struct {
	desc *prometheus.Desc
	// ok is false until a read succeeds and while the last one failed; a
	// state counts lacks is 0.
	ok     bool
	counts map[string]int
}

func newWorkerStates() workerStates {
	return workerStates{desc: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "workers"),
		"Worker sessions by state, read from the database (every replica reports the same: aggregate with max by (state)): active and draining are live "+
			"(their lease not passed); expired and lost are the sessions the lease sweep expired within the last hour (no heartbeat, no end of the session): "+
			"lost when their worker did not register again within a run lease and a session lease of the expiry, expired when it did or may still "+
			"(a database outage expires every session, and the workers come back), both counted up to the monitoring limit. Revoked credentials' sessions are not counted.",
		[]string{"state"}, nil)}
}

// refresh reads the counts once and reports whether the read succeeded; a
// failed read leaves the gauge out rather than repeating stale counts as
// if they were current.
func (w *workerStates) refresh(ctx context.Context, read func(context.Context, int) (map[string]int, error), limit int) bool {
	counts, err := read(ctx, limit)
	w.ok, w.counts = err == nil, counts
	return w.ok
}

func (w *workerStates) collect(ch chan<- prometheus.Metric) {
	if !w.ok {
		return
	}
	for _, s := range WorkerStateNames {
		ch <- prometheus.MustNewConstMetric(w.desc, prometheus.GaugeValue, float64(w.counts[s]), s)
	}
}
