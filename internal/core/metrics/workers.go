package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Worker states, as qinglong_workers labels them (cluster).
const (
	WorkerActive   = "active"
	WorkerDraining = "draining"
	WorkerExpired  = "expired"
)

// WorkerStateNames lists every worker state, each exported from the first
// reading on, zeros included: a series that first appears at 1 is one
// changes() and increase() never see change.
var WorkerStateNames = []string{WorkerActive, WorkerDraining, WorkerExpired}

// WorkerExpiredWindow is how far back, in database time, the expired state
// counts the sessions the sweep expired: an alert on a lost worker fires
// for that long after the loss, whether or not the worker came back.
const WorkerExpiredWindow = time.Hour

// workersCollector reads the worker sessions per state at scrape time, at
// most once per CacheFor, like the store reads of stateCollector; a failed
// read counts in that collector's read failures and leaves the gauge out.
type workersCollector struct {
	read   func(ctx context.Context, limit int) (map[string]int, error)
	state  *stateCollector
	limit  int
	every  time.Duration
	byName *prometheus.Desc

	mu     sync.Mutex
	readAt time.Time
	// ok is false while the last read failed; a state counts lacks is 0.
	ok     bool
	counts map[string]int
}

func newWorkersCollector(cfg Config, state *stateCollector) *workersCollector {
	return &workersCollector{
		read: cfg.WorkerStates, state: state, limit: cfg.Limit, every: cfg.CacheFor,
		byName: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "workers"),
			"Worker sessions by state, read from the database (every replica reports the same: aggregate with max by (state)): active and draining are live "+
				"(their lease not passed); expired are the sessions the lease sweep expired within the last hour, their worker lost without ending its session, "+
				"counted up to the monitoring limit. Revoked credentials' sessions are not counted.",
			[]string{"state"}, nil),
	}
}

func (c *workersCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.byName }

func (c *workersCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.readAt) >= c.every {
		c.refresh()
	}
	if !c.ok {
		return
	}
	for _, s := range WorkerStateNames {
		ch <- prometheus.MustNewConstMetric(c.byName, prometheus.GaugeValue, float64(c.counts[s]), s)
	}
}

// refresh reads the store once; a failed read leaves the gauge out rather
// than repeating stale counts as if they were current.
func (c *workersCollector) refresh() {
	c.readAt = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	counts, err := c.read(ctx, c.limit)
	c.ok, c.counts = err == nil, counts
	if err != nil {
		c.state.readFailed()
	}
}
