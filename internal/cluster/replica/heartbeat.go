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

// heartbeatEvery is the heartbeat's cadence for a claim lease.
func heartbeatEvery(claimLease time.Duration) time.Duration {
	return min(max(claimLease/4, minHeartbeatEvery), maxHeartbeatEvery)
}

// heartbeat is this process's identity as its heartbeat row shows it, and
// whether a beat has written the row yet (the first one restarts it).
type heartbeat struct {
	host    string
	pid     int64
	written atomic.Bool
}

func newHeartbeat() *heartbeat {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return &heartbeat{host: host, pid: int64(os.Getpid())}
}

// heartbeatLoop writes this replica's heartbeat over act's pool, the first
// beat at once. It never touches readiness: a failed beat is logged and
// reported to the latch like any other statement, and the next round
// tries again.
func (r *replica) heartbeatLoop(act *activation) (*loop.Loop, error) {
	every := heartbeatEvery(r.s.Coordinator.Lease)
	return loop.New(loop.Config{
		Name:        "replica heartbeat",
		Cadence:     every,
		StopTimeout: r.s.Coordinator.StopTimeout,
	}, func(ctx context.Context) (bool, error) {
		if !act.latch.Available() {
			return false, nil
		}
		first := !r.beat.written.Load()
		err := act.rt.Beat(ctx, pgstore.ReplicaBeat{Host: r.beat.host, PID: r.beat.pid, Version: cmp.Or(cli.Version, "dev"), TTL: heartbeatLives * every, First: first})
		if err != nil {
			r.observeOn(act, err)
			r.log.Warn("replica heartbeat failed; retrying at its next round", slog.String("code", CodeHeartbeatFailed), slog.String("error", errorText(err)))
			return false, err
		}
		r.beat.written.Store(true)
		return false, nil
	})
}

// heartbeatStopped marks this replica's row stopped at a graceful stop,
// after the heartbeat loop ended, so the console stops counting it at
// once rather than when the row expires. A database that is gone is not
// waited for: the row then expires.
func (r *replica) heartbeatStopped(ctx context.Context, act *activation) {
	if !act.latch.Available() || !r.beat.written.Load() {
		return
	}
	if err := act.rt.BeatStopped(ctx); err != nil {
		r.log.Warn("could not mark this replica stopped; its heartbeat row expires instead", slog.String("code", CodeHeartbeatStop), slog.String("error", errorText(err)))
	}
}
