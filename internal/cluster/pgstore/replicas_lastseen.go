package pgstore

import (
	"context"
	"time"
)

// ClusterLastSeen is what the database knows of the cluster's last moments
// before an activation: when a replica was last seen, and whether workers
// were then running or granted anything. A database restored from a dump,
// or a standby that lost commits, shows replicas not seen for a long time
// while workers may still run commands it no longer knows.
type ClusterLastSeen struct {
	// NowMs is the database clock at the read.
	NowMs int64
	// NewestBeatAtMs is the newest beat or stop of any replica; 0 when no
	// replica ever beat (a fresh installation).
	NewestBeatAtMs int64
	// LiveSessions: a worker session is active or draining.
	LiveSessions bool
	// LiveAttempts: an attempt is granted, starting or running.
	LiveAttempts bool
	// HoldUntilMs is the end of a hold for workers another replica
	// recorded and still in force; 0 when none is.
	HoldUntilMs int64
}

// ClusterLastSeen reads the cluster's last moments in one statement, by the
// database clock.
func (r *Runtime) ClusterLastSeen(ctx context.Context) (ClusterLastSeen, error) {
	var c ClusterLastSeen
	var newest, holdUntil *int64
	err := r.pool.QueryRow(ctx, sqlReplicaClusterLastSeen).Scan(&c.NowMs, &newest, &c.LiveSessions, &c.LiveAttempts, &holdUntil)
	if err != nil {
		return ClusterLastSeen{}, mapErr(err, "reading when a replica was last seen")
	}
	c.NewestBeatAtMs = derefInt(newest)
	c.HoldUntilMs = derefInt(holdUntil)
	return c, nil
}

// WorkersHoldRecord records that replicaID holds for workers for length
// from now in database time (lengthening a hold still in force, never
// shortening it) and answers the database clock and the hold's end.
func (r *Runtime) WorkersHoldRecord(ctx context.Context, replicaID string, length time.Duration) (nowMs, untilMs int64, err error) {
	if err := r.pool.QueryRow(ctx, sqlWorkersHoldRecord, replicaID, length.Milliseconds()).Scan(&nowMs, &untilMs); err != nil {
		return 0, 0, mapErr(err, "recording the hold for workers")
	}
	return nowMs, untilMs, nil
}
