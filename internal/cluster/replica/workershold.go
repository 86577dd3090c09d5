package replica

import (
	"context"
	"log/slog"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// CodeHeldForWorkers says the activation holds admission and dispatch for one
// run lease (why, and until when in database time).
const CodeHeldForWorkers = "serve.held_for_workers"

// workersHold is an activation's decision to hold admission and dispatch.
type workersHold struct {
	seen   pgstore.ClusterLastSeen
	length time.Duration
}

// holdForWorkersNeeded decides, from the database alone, whether commands
// the database no longer knows may still run: no replica was seen for over
// a run lease (so no replica has renewed any run lease since, and the
// database may be a restore or a standby behind what workers were told),
// yet a worker session or an attempt was live when one last was. A fresh
// installation (no replica ever seen) and a restart beside a live replica,
// or one within a run lease of the last beat, are not held. The hold lasts
// one run lease: every worker ends a command whose lease it cannot renew
// by the end of its copy of the lease, which no replica renewed after the
// last beat and which is at most one run lease long.
func holdForWorkersNeeded(seen pgstore.ClusterLastSeen, runLease time.Duration) (workersHold, bool) {
	if seen.NewestBeatAtMs == 0 || !(seen.LiveSessions || seen.LiveAttempts) {
		return workersHold{}, false
	}
	if seen.NowMs-seen.NewestBeatAtMs <= runLease.Milliseconds() {
		return workersHold{}, false
	}
	return workersHold{seen: seen, length: runLease}, true
}

// holdForWorkers waits out a hold, /readyz saying held_for_workers, before
// the activation starts its heartbeat, its worker ingress or its
// scheduler: nothing is admitted or granted, and no worker request is
// answered (503), until every command the database does not know has
// reached the end of its lease on its worker. The heartbeat waits too, so
// another replica starting meanwhile holds as well.
func (r *replica) holdForWorkers(ctx context.Context, h workersHold, readAt time.Time) error {
	r.adm.held.Store(true)
	defer r.adm.held.Store(false)
	r.log.Warn("the database shows no replica running for longer than a run lease while workers may still run commands: "+
		"admission and dispatch are held for one run lease, so that commands the database does not know (a restore, a standby that lost commits) end on their workers first",
		slog.String("code", CodeHeldForWorkers),
		slog.Int64("last_replica_seen_ms_ago", h.seen.NowMs-h.seen.NewestBeatAtMs),
		slog.Bool("live_worker_sessions", h.seen.LiveSessions), slog.Bool("live_attempts", h.seen.LiveAttempts),
		slog.Int64("hold_ms", h.length.Milliseconds()),
		slog.String("until", time.UnixMilli(h.seen.NowMs+h.length.Milliseconds()).UTC().Format(time.RFC3339Nano)))
	wait := time.NewTimer(time.Until(readAt.Add(h.length)))
	defer wait.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wait.C:
		return nil
	}
}
