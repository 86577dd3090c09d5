package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ExpiredSession is one worker session a sweep expired: its worker sent
// no heartbeat for a session lease and did not end it. Exactly one sweep
// in the cluster returns each (sql/workers_sweep.sql, SweepSessions).
type ExpiredSession struct {
	SessionID  string
	WorkerID   string
	WorkerName string
	Generation int64
	// Version is the worker's binary version, as it registered.
	Version string
	// LastHeartbeatAtMs is the session's last heartbeat (its registration
	// when none came), in database time; ExpiredAtMs is the sweep's.
	LastHeartbeatAtMs, ExpiredAtMs int64
	// Draining: the session was draining (its worker stopping, or its
	// credential drained), not taking work, when it expired.
	Draining bool
	// WorkerRevoked: the worker's credential is revoked, which is why its
	// heartbeats were refused.
	WorkerRevoked bool
	// AttemptsLeased counts the grants and started attempts still leased
	// under the session: each is released or ended lost by the sweep once
	// its own run lease passes, unless the worker renews it first.
	AttemptsLeased int
}

// sweepSessions expires one page of sessions whose lease passed.
func sweepSessions(ctx context.Context, r *Runtime, limit int) ([]ExpiredSession, error) {
	rows, err := r.pool.Query(ctx, sqlSweepSessions, limit)
	if err != nil {
		return nil, err
	}
	var out []ExpiredSession
	var e ExpiredSession
	var was string
	_, err = pgx.ForEachRow(rows, []any{&e.SessionID, &e.WorkerName, &e.WorkerID, &e.Generation, &e.Version, &e.LastHeartbeatAtMs,
		&was, &e.WorkerRevoked, &e.AttemptsLeased, &e.ExpiredAtMs}, func() error {
		e.Draining = was == workerDraining
		out = append(out, e)
		return nil
	})
	return out, err
}
