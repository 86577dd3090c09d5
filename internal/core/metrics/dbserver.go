package metrics

import (
	"cmp"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// DatabaseServer is the database server a cluster replica's live
// activation reached (pgstore.Server): its address as the replica dialled
// it, the server's own address and port, its system identifier and
// timeline, "unknown" where the replica's role may not read one.
type DatabaseServer struct {
	Address, ServerAddress, SystemID string
	Timeline                         int64
}

// newDatabaseServer is qinglong_database_server_info, a cluster replica's
// only: one series, replaced at each activation, so a failover, or a
// reconnection that reached another server, shows as a change of labels.
func newDatabaseServer() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "database_server_info",
		Help: "Always 1; its labels name the PostgreSQL server this replica's last activation reached: address (as dialled), " +
			"server_address (inet_server_addr:inet_server_port), system_identifier and timeline (unknown when the role may not read them). " +
			"Absent until the first activation reached one.",
	}, []string{"address", "server_address", "system_identifier", "timeline"})
}

// DatabaseServerReached replaces the series of qinglong_database_server_info
// with s's; a single-node server has no such series and ignores it.
func (m *Metrics) DatabaseServerReached(s DatabaseServer) {
	if m.dbServer == nil {
		return
	}
	timeline := "unknown"
	if s.Timeline > 0 {
		timeline = strconv.FormatInt(s.Timeline, 10)
	}
	m.dbServer.Reset()
	m.dbServer.WithLabelValues(cmp.Or(s.Address, "unknown"), cmp.Or(s.ServerAddress, "unknown"), cmp.Or(s.SystemID, "unknown"), timeline).Set(1)
}
