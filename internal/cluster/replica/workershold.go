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
	seen pgstore.ClusterLastSeen
	// length is the hold this activation decides; 0 when it joins a hold
	// another replica recorded (seen.HoldUntilMs).
	length time.Duration
}

// holdForWorkersNeeded decides, from the database alone, whether commands
// the database no longer knows may still run. A hold another replica
// recorded and still in force is joined: that replica's startup recovery
// may already have marked the live worker sessions and attempts expired,
// and it serves nothing until its hold ends, so this start is no start
// beside a serving replica. Otherwise a hold is needed when no replica was
// seen for over a run lease (so no replica has renewed any run lease
// since, and the database may be a restore or a standby behind what
// workers were told), yet a worker session or an attempt was live when one
// last was. A fresh installation (no replica ever seen) and a restart
// beside a live replica, or one within a run lease of the last beat, are
// not held. The hold lasts one run lease: every worker ends a command
// whose lease it cannot renew by the end of its copy of the lease, which
// no replica renewed after the last beat and which is at most one run
// lease long.
func holdForWorkersNeeded(seen pgstore.ClusterLastSeen, runLease time.Duration) (workersHold, bool) {
	if seen.HoldUntilMs > seen.NowMs {
		return workersHold{seen: seen}, true
	}
	if seen.NewestBeatAtMs == 0 || !(seen.LiveSessions || seen.LiveAttempts) {
		return workersHold{}, false
	}
	if seen.NowMs-seen.NewestBeatAtMs <= runLease.Milliseconds() {
		return workersHold{}, false
	}
	return workersHold{seen: seen, length: runLease}, true
}

// heldHold is a hold as the database recorded it: its end in database
// time, the database clock when that was read and this process's clock
// once the answer arrived (the wait runs from it, so it never ends before
// the database's end).
type heldHold struct {
	workersHold
	nowMs, untilMs int64
	readAt         time.Time
	joined         bool
}

// recordHold writes a hold this activation decided to the database before
// its startup recovery erases the facts it was decided on, so that a
// replica starting meanwhile joins it; a joined hold is taken as read.
func (r *replica) recordHold(ctx context.Context, rt *pgstore.Runtime, h workersHold, readAt time.Time) (heldHold, error) {
	if h.length == 0 {
		return heldHold{workersHold: h, nowMs: h.seen.NowMs, untilMs: h.seen.HoldUntilMs, readAt: readAt, joined: true}, nil
	}
	nowMs, untilMs, err := rt.WorkersHoldRecord(ctx, r.s.Coordinator.Owner, h.length)
	if err != nil {
		return heldHold{}, err
	}
	return heldHold{workersHold: h, nowMs: nowMs, untilMs: untilMs, readAt: time.Now()}, nil
}

// holdForWorkers waits out a hold, /readyz saying held_for_workers, before
// the activation starts its heartbeat, its worker ingress or its
// scheduler: nothing is admitted or granted, and no worker request is
// answered (503), until every command the database does not know has
// reached the end of its lease on its worker. The heartbeat waits too, so
// another replica starting meanwhile is not beside a serving one; it
// reads the recorded hold and holds as well.
func (r *replica) holdForWorkers(ctx context.Context, h heldHold) error {
	r.adm.held.Store(true)
	defer r.adm.held.Store(false)
	why := "the database shows no replica running for longer than a run lease while workers may still run commands: " +
		"admission and dispatch are held for one run lease, so that commands the database does not know (a restore, a standby that lost commits) end on their workers first"
	if h.joined {
		why = "another replica holds for workers (it started on a database no replica ran on for longer than a run lease while workers may still run commands): " +
			"this replica holds admission and dispatch until that hold ends, so that nothing is admitted inside it"
	}
	r.log.Warn(why,
		slog.String("code", CodeHeldForWorkers),
		slog.Bool("joined", h.joined),
		slog.Int64("last_replica_seen_ms_ago", h.seen.NowMs-h.seen.NewestBeatAtMs),
		slog.Bool("live_worker_sessions", h.seen.LiveSessions), slog.Bool("live_attempts", h.seen.LiveAttempts),
		slog.Int64("hold_ms", h.untilMs-h.nowMs),
		slog.String("until", time.UnixMilli(h.untilMs).UTC().Format(time.RFC3339Nano)))
	wait := time.NewTimer(time.Until(h.readAt.Add(time.Duration(h.untilMs-h.nowMs) * time.Millisecond)))
	defer wait.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wait.C:
		return nil
	}
}
