package replica

import (
	"cmp"
	"context"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/loop"
)

// Diagnostic codes of the replica heartbeat.
const (
	CodeHeartbeatFailed = "serve.heartbeat_failed"
	CodeHeartbeatStop   = "serve.heartbeat_stop_failed"
	// CodeReplicaIDShared: another process uses this replica's id.
	CodeReplicaIDShared = "serve.replica_id_shared"
)

// Bounds of the heartbeat's cadence, a quarter of the claim lease: often
// enough that the console's count follows replicas within seconds, never
// more than once a second (one small upsert each), never rarer than every
// 5 s. A row lives heartbeatLives cadences, so a replica is shown expired
// only after missing that many beats in a row.
const (
	minHeartbeatEvery = time.Second
	maxHeartbeatEvery = 5 * time.Second
	heartbeatLives    = 3
)

// firstBeatWithin bounds the beat an activation writes before admission
// opens: a database that answers nothing keeps the replica unready at most
// this long on its account.
const firstBeatWithin = time.Second

// heartbeatEvery is the heartbeat's cadence for a claim lease.
func heartbeatEvery(claimLease time.Duration) time.Duration {
	return min(max(claimLease/4, minHeartbeatEvery), maxHeartbeatEvery)
}

// heartbeat is this process's identity as its heartbeat row shows it, and
// the row's start as its first beat wrote it (0 until then: the first beat
// restarts the row). taken remembers that another process under the same
// id restarted the row, so that it is said once, not at every beat.
type heartbeat struct {
	host    string
	pid     int64
	started atomic.Int64
	taken   atomic.Bool
}

func newHeartbeat() *heartbeat {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return &heartbeat{host: host, pid: int64(os.Getpid())}
}

// firstBeat writes act's first heartbeat, before admission opens, so that
// once the replica says it is ready (its log line, /readyz) its row is
// live: `ql triggers run` and the console count it from that moment, not
// from the loop's first round, which runs on a goroutine of its own and
// may land after. It reports whether the row was written. A failed or
// slow beat does not fail the activation nor hold it past firstBeatWithin:
// the row only shows the replica and guards no admission, so a replica
// that can admit opens admission anyway and its loop writes the row at
// its next round.
func (r *replica) firstBeat(ctx context.Context, act *activation, every time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, firstBeatWithin)
	defer cancel()
	return r.beatOnce(ctx, act, every) == nil
}

// heartbeatLoop writes this replica's heartbeat over act's pool, every
// cadence from now on, and checks after each beat that the migration
// history is still its binary's (checkSchema); written is whether
// firstBeat wrote the row, whose next beat is then a cadence away rather
// than at once. It never touches
// readiness: a failed beat is logged and reported to the latch like any
// other statement, and the next round tries again.
func (r *replica) heartbeatLoop(act *activation, every time.Duration, written bool) (*loop.Loop, error) {
	var skip atomic.Bool
	skip.Store(written)
	return loop.New(loop.Config{
		Name:        "replica heartbeat",
		Cadence:     every,
		StopTimeout: r.s.Coordinator.StopTimeout,
	}, func(ctx context.Context) (bool, error) {
		if r.s.beforeBeatRound != nil {
			r.s.beforeBeatRound(ctx)
		}
		if skip.Swap(false) {
			return false, nil
		}
		if err := r.beatOnce(ctx, act, every); err != nil {
			return false, err
		}
		return false, r.checkSchema(ctx, act)
	})
}

// beatOnce writes one heartbeat of act, unless its database is known lost.
func (r *replica) beatOnce(ctx context.Context, act *activation, every time.Duration) error {
	if !act.latch.Available() {
		return nil
	}
	started := r.beat.started.Load()
	ans, err := act.rt.Beat(ctx, pgstore.ReplicaBeat{Host: r.beat.host, PID: r.beat.pid, Version: cmp.Or(cli.Version, "dev"), TTL: heartbeatLives * every, StartedAtMs: started})
	if err != nil {
		r.observeOn(act, err)
		r.log.Warn("replica heartbeat failed; retrying at its next round", slog.String("code", CodeHeartbeatFailed), slog.String("error", errorText(err)))
		return err
	}
	r.sharedID(started, ans)
	if ans.StartedAtMs != 0 {
		r.beat.started.Store(ans.StartedAtMs)
	}
	return nil
}

// sharedID says when another process uses this replica's id: at the first
// beat, a row still live under another host or pid; later, a row another
// process restarted (this one's beats then write nothing). Two replicas
// with one id show as one in the console and mark each other stopped; each
// needs its own --replica-id.
func (r *replica) sharedID(started int64, ans pgstore.BeatAnswer) {
	other := ans.PriorHost != r.beat.host || ans.PriorPID != r.beat.pid
	switch {
	case started == 0 && ans.PriorLive && other:
		r.log.Warn("this replica's id was live for another process when this one started: if that process still runs, give each replica its own --replica-id",
			slog.String("code", CodeReplicaIDShared), slog.String("replica_id", r.s.Coordinator.Owner), slog.String("other_host", ans.PriorHost), slog.Int64("other_pid", ans.PriorPID))
	case started != 0 && ans.StartedAtMs == 0 && ans.PriorHost != "" && other && !r.beat.taken.Swap(true):
		r.log.Error("another process took this replica's id: two replicas share one --replica-id; give each its own (this one's heartbeat is no longer shown)",
			slog.String("code", CodeReplicaIDShared), slog.String("replica_id", r.s.Coordinator.Owner), slog.String("other_host", ans.PriorHost), slog.Int64("other_pid", ans.PriorPID))
	}
}

// heartbeatStopped marks this replica's row stopped at a graceful stop,
// after the heartbeat loop ended, so the console stops counting it at
// once rather than when the row expires. A database that is gone is not
// waited for: the row then expires.
func (r *replica) heartbeatStopped(ctx context.Context, act *activation) {
	started := r.beat.started.Load()
	if !act.latch.Available() || started == 0 {
		return
	}
	if err := act.rt.BeatStopped(ctx, started); err != nil {
		r.log.Warn("could not mark this replica stopped; its heartbeat row expires instead", slog.String("code", CodeHeartbeatStop), slog.String("error", errorText(err)))
	}
}
