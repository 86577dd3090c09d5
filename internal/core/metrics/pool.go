package metrics

import "github.com/prometheus/client_golang/prometheus"

// PoolStat is a cluster replica's connection pool as it stands: its size
// and the connections open, in use or idle.
type PoolStat struct {
	Max, InUse, Idle int32
}

// poolCollector reads the pool at each scrape, from memory (no query): how
// close a replica is to its share of max_connections, and whether it has
// a pool at all (absent while it re-activates).
type poolCollector struct {
	read      func() (PoolStat, bool)
	size, con *prometheus.Desc
}

// AddPool exports the replica's pool gauges, read by read at each scrape;
// read answers false while there is no pool. Call it once, before the
// first scrape.
func (m *Metrics) AddPool(read func() (PoolStat, bool)) {
	m.reg.MustRegister(&poolCollector{
		read: read,
		size: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "database", "pool_max_connections"),
			"The most connections this replica's runtime pool opens (its notice listener holds one more). Absent while it has no pool.", nil, nil),
		con: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "database", "pool_connections"),
			"Connections open in this replica's runtime pool, by state: in_use (acquired) or idle. Absent while it has no pool.", []string{"state"}, nil),
	})
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.con
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	st, ok := c.read()
	if !ok {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(st.Max))
	ch <- prometheus.MustNewConstMetric(c.con, prometheus.GaugeValue, float64(st.InUse), "in_use")
	ch <- prometheus.MustNewConstMetric(c.con, prometheus.GaugeValue, float64(st.Idle), "idle")
}
