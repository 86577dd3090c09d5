package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Storage is what a server can read of the storage it fills, so that a
// disk filling up shows before writes fail on it.
type Storage struct {
	// DatabaseBytes reads the database's size on disk; nil leaves
	// qinglong_database_size_bytes out. It may answer an error while no
	// database is reachable.
	DatabaseBytes func(ctx context.Context) (int64, error)
	// RunLogsBytes reads what the run logs take on disk (a single node's
	// files as the log cap counts them, a cluster's rows); nil leaves
	// qinglong_run_logs_size_bytes out.
	RunLogsBytes func(ctx context.Context) (int64, error)
	// DataDirFreeBytes, single node only, reads the free space of the
	// file system holding the data directory; nil (a cluster replica,
	// whose disk is PostgreSQL's) leaves the gauge out.
	DataDirFreeBytes func() (int64, error)
}

// AddStorage exports the storage gauges s can read, read at scrape time
// at most once per the cache period, as the store-read gauges are. Their
// collector takes the store-read gauges' place in the registry and
// collects them after its own reads, so a read of its that failed counts
// in qinglong_monitor_read_failures_total in the same scrape: collectors
// of one registry are collected in no set order. Call it once, before
// the first scrape.
func (m *Metrics) AddStorage(s Storage) {
	// Each profile's help names only what it has.
	dbHelp := "Size of the database on disk: its file and its write-ahead log (-wal), which holds the writes not yet checkpointed into the file."
	logsHelp := "Size on disk of the run logs, files in the data directory, as the log cap counts them: each in whole 4 KiB blocks, at least one."
	if m.cluster {
		dbHelp = "Size of the database on disk: pg_database_size of the database the replica connects to, every schema of it."
		logsHelp = "Size on disk of the run logs' table, its indexes and TOAST included: part of qinglong_database_size_bytes."
	}
	m.reg.Unregister(m.state)
	m.reg.MustRegister(&storageCollector{
		s:        s,
		cacheFor: m.cacheFor,
		state:    m.state,
		dbSize:   prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "database_size_bytes"), dbHelp+" Absent while the last read of it failed.", nil, nil),
		logs:     prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "run_logs_size_bytes"), logsHelp+" Absent while the last read of it failed.", nil, nil),
		free: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", "data_dir_free_bytes"),
			"Bytes free to an ordinary user on the file system holding the data directory. A full disk fails writes, not readiness: it shows here first.", nil, nil),
	})
}

// storageCollector reads the sizes at most once per cacheFor: stat calls
// and an index sum on SQLite, two queries on PostgreSQL, all together
// bounded by readTimeout.
type storageCollector struct {
	s        Storage
	cacheFor time.Duration
	// state is the store-read gauges' collector, collected after the
	// sizes; it counts their failed reads with its own.
	state *stateCollector

	dbSize, logs, free *prometheus.Desc

	mu                sync.Mutex
	readAt            time.Time
	db, runLogs, room *int64
}

func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.dbSize
	ch <- c.logs
	ch <- c.free
	c.state.Describe(ch)
}

func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	c.collectSizes(ch)
	c.state.Collect(ch)
}

func (c *storageCollector) collectSizes(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.readAt) >= c.cacheFor {
		c.refresh()
	}
	if c.db != nil {
		ch <- prometheus.MustNewConstMetric(c.dbSize, prometheus.GaugeValue, float64(*c.db))
	}
	if c.runLogs != nil {
		ch <- prometheus.MustNewConstMetric(c.logs, prometheus.GaugeValue, float64(*c.runLogs))
	}
	if c.room != nil {
		ch <- prometheus.MustNewConstMetric(c.free, prometheus.GaugeValue, float64(*c.room))
	}
}

// refresh reads the sizes once; a failed read leaves its gauge out rather
// than repeating a stale size as if it were current.
func (c *storageCollector) refresh() {
	c.readAt = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	c.db, c.runLogs, c.room = c.read(ctx, c.s.DatabaseBytes), c.read(ctx, c.s.RunLogsBytes), nil
	if c.s.DataDirFreeBytes != nil {
		if n, err := c.s.DataDirFreeBytes(); err == nil {
			c.room = &n
		}
	}
}

// read calls f, if set; a failed read is counted and answers nil.
func (c *storageCollector) read(ctx context.Context, f func(context.Context) (int64, error)) *int64 {
	if f == nil {
		return nil
	}
	n, err := f(ctx)
	if err != nil {
		c.state.countFailedRead()
		return nil
	}
	return &n
}

// countFailedRead counts a failed store read made outside refresh.
func (c *stateCollector) countFailedRead() {
	c.mu.Lock()
	c.failed++
	c.mu.Unlock()
}
