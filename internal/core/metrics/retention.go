package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/qinglong/qinglong/internal/core/retention"
)

// Retention's kinds of deleted things, as qinglong_retention_deleted_total
// labels them: rows of each table and log files (a cluster's logs are
// rows, one per attempt's log), and expired console sessions.
const (
	DeletedRuns          = "runs"
	DeletedAttempts      = "attempts"
	DeletedEvents        = "events"
	DeletedLogs          = "logs"
	DeletedNotifications = "notifications"
	DeletedSessions      = "sessions"
)

// DeletedKinds lists every kind retention deletes.
var DeletedKinds = []string{DeletedRuns, DeletedAttempts, DeletedEvents, DeletedLogs, DeletedNotifications, DeletedSessions}

func deletedCounts(d retention.Deleted) []int64 {
	return []int64{d.Runs, d.Attempts, d.Events, d.Logs, d.Notifications, d.Sessions}
}

// retentionCollector exports what this server's retention passes deleted
// and when the last one completed.
type retentionCollector struct {
	deleted, lastPass *prometheus.Desc

	mu    sync.Mutex
	total [6]int64
	// running: the server runs a retention loop, so the last pass's time
	// is exported, 0 until a pass completes.
	running bool
	last    time.Time
}

func newRetentionCollector(cluster bool) *retentionCollector {
	// Each profile's help names only what it has.
	logs := "logs (files)"
	if cluster {
		logs = "logs (an attempt's log rows count one)"
	}
	return &retentionCollector{
		deleted: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "retention", "deleted_total"),
			"What this server's retention passes deleted, by kind: runs, attempts, events, "+logs+", notifications and expired console sessions. "+
				"A pass that failed part way counts what its committed batches deleted; `retention run` commands count on no server.", []string{"kind"}, nil),
		lastPass: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "retention", "last_pass_timestamp_seconds"),
			"When this server's last retention pass that ended without error ended (Unix time; one its budget cut short counts, the next starts at once); "+
				"0 until one has. Absent where the server runs no retention.", nil, nil),
	}
}

func (c *retentionCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.deleted
	ch <- c.lastPass
}

func (c *retentionCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range DeletedKinds {
		ch <- prometheus.MustNewConstMetric(c.deleted, prometheus.CounterValue, float64(c.total[i]), k)
	}
	if !c.running {
		return
	}
	ts := 0.0
	if !c.last.IsZero() {
		ts = float64(c.last.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(c.lastPass, prometheus.GaugeValue, ts)
}

// RetentionLoop says the server runs a retention loop, so the time of its
// last completed pass is exported (0 until one completes), and returns
// what the loop calls after every pass (retention.LoopConfig.OnPass).
func (m *Metrics) RetentionLoop() func(retention.Report, error) {
	c := m.retention
	c.mu.Lock()
	c.running = true
	c.mu.Unlock()
	return func(rep retention.Report, err error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, n := range deletedCounts(rep.Total) {
			c.total[i] += n
		}
		if err == nil {
			c.last = time.Now()
		}
	}
}
