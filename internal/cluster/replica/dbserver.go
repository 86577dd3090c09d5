package replica

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/metrics"
)

// Diagnostic codes of a reconnection that reached another database server
// than the activation before it (docs/operations.md, "High availability").
const (
	// CodeDatabaseServerChanged: another address or another cluster (system
	// identifier) than before, on the same or a later timeline: a failover,
	// a host name moved, or a URL edited between restarts.
	CodeDatabaseServerChanged = "serve.database_server_changed"
	// CodeDatabaseTimelineBehind: a server of the same cluster on an older
	// timeline than before: an old primary that came back after a
	// failover and was not fenced, so two servers accept writes.
	CodeDatabaseTimelineBehind = "serve.database_timeline_behind"
)

// serverAttrs name the server an activation reached, for its
// serve.database_ready line: never the URL, only what the connection and
// the server say.
func serverAttrs(s pgstore.Server) []any {
	attrs := []any{slog.String("address", s.Address), slog.Bool("standby", s.Standby)}
	if s.ServerAddress != "" {
		attrs = append(attrs, slog.String("server_address", s.ServerAddress))
	}
	if s.SystemID != "" {
		attrs = append(attrs, slog.String("system_identifier", s.SystemID))
	}
	if s.Timeline > 0 {
		attrs = append(attrs, slog.Int64("timeline", s.Timeline))
	}
	if len(s.Unreadable) > 0 {
		attrs = append(attrs, slog.String("unreadable", strings.Join(s.Unreadable, ", ")+": revoked from this role, so a failover shows only as another address"))
	}
	return attrs
}

// serverChange says how now differs from before, the server the previous
// activation reached, as a log code and a sentence; "" when it is the same
// server or there was none before. What the role may not read (a system
// identifier, a timeline) is not compared.
func serverChange(before *pgstore.Server, now pgstore.Server) (code, msg string) {
	if before == nil {
		return "", ""
	}
	sameCluster := before.SystemID == "" || now.SystemID == "" || before.SystemID == now.SystemID
	if sameCluster && before.Timeline > 0 && now.Timeline > 0 && now.Timeline < before.Timeline {
		return CodeDatabaseTimelineBehind, fmt.Sprintf("reconnected to a database server on timeline %d, older than timeline %d this replica used before: "+
			"an old primary that came back after a failover (two servers accept writes); stop it or take it out of every URL now, "+
			"then restart this replica: what was written on the newer timeline is not here", now.Timeline, before.Timeline)
	}
	switch {
	case !sameCluster:
		return CodeDatabaseServerChanged, fmt.Sprintf("reconnected to another PostgreSQL cluster (system identifier %s, before %s) at %s (before %s): "+
			"not a standby of the server before; check that the URL names the database you mean", now.SystemID, before.SystemID, now.Address, before.Address)
	case now.Address != before.Address || now.ServerAddress != before.ServerAddress:
		return CodeDatabaseServerChanged, fmt.Sprintf("reconnected to another database server, %s (before %s): a failover or a moved host name; "+
			"check that it is the primary you mean and that the server before is fenced", cmpAddr(now), cmpAddr(*before))
	}
	return "", ""
}

// cmpAddr is a server's address as the replica dialled it, with the
// server's own where a proxy stands between them.
func cmpAddr(s pgstore.Server) string {
	if s.ServerAddress == "" || s.ServerAddress == s.Address {
		return s.Address
	}
	return s.Address + ", server " + s.ServerAddress
}

// reached logs the server an activation reached, warns when it is not the
// one the activation before reached, and exports it. Only the supervisor
// calls it, one activation at a time.
func (r *replica) reached(s pgstore.Server) {
	r.log.Info("database ready", append([]any{slog.String("code", CodeDatabaseReady)}, serverAttrs(s)...)...)
	if code, msg := serverChange(r.server, s); code != "" {
		r.log.Warn(msg, slog.String("code", code))
	}
	r.server = &s
	if r.metrics != nil {
		r.metrics.DatabaseServerReached(metrics.DatabaseServer{Address: s.Address, ServerAddress: s.ServerAddress, SystemID: s.SystemID, Timeline: s.Timeline})
	}
}
