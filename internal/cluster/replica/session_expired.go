package replica

import (
	"context"
	"log/slog"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// CodeWorkerSessionExpired is logged once per worker session the lease
// sweep expired, by the replica whose sweep expired it.
const CodeWorkerSessionExpired = "worker.session_expired"

// logExpiredSessions says which workers the sweep found lost: one line per
// session, written only by this replica, since exactly one sweep in the
// cluster expires a session (pgstore.ExpiredSession). A lost worker is a
// warning; a revoked one's session expiring is the revocation's doing and
// is said at info.
func (r *replica) logExpiredSessions(ctx context.Context, expired []pgstore.ExpiredSession) {
	for _, e := range expired {
		level, msg := slog.LevelWarn, "worker session expired: the worker sent no heartbeat for its session lease and did not end its session; "+
			"its attempts still leased are released or ended lost (and retried when their task's retry policy allows) as their run leases pass, unless it comes back and renews them"
		if e.WorkerRevoked {
			level, msg = slog.LevelInfo, "worker session expired after its credential was revoked; its attempts still leased are ended as their run leases pass"
		}
		r.log.Log(ctx, level, msg, slog.String("code", CodeWorkerSessionExpired),
			slog.String("worker", e.WorkerName), slog.String("worker_id", e.WorkerID), slog.String("session", e.SessionID),
			slog.Int64("generation", e.Generation), slog.String("worker_version", e.Version),
			slog.Time("last_seen", time.UnixMilli(e.LastHeartbeatAtMs).UTC()),
			slog.Int64("silent_ms", e.ExpiredAtMs-e.LastHeartbeatAtMs),
			slog.Bool("draining", e.Draining), slog.Bool("worker_revoked", e.WorkerRevoked), slog.Int("attempts_leased", e.AttemptsLeased))
	}
}
