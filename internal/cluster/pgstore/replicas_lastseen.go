package pgstore

import "context"

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
}

// ClusterLastSeen reads the cluster's last moments in one statement, by the
// database clock.
func (r *Runtime) ClusterLastSeen(ctx context.Context) (ClusterLastSeen, error) {
	var c ClusterLastSeen
	var newest *int64
	err := r.pool.QueryRow(ctx, sqlReplicaClusterLastSeen).Scan(&c.NowMs, &newest, &c.LiveSessions, &c.LiveAttempts)
	if err != nil {
		return ClusterLastSeen{}, mapErr(err, "reading when a replica was last seen")
	}
	c.NewestBeatAtMs = derefInt(newest)
	return c, nil
}
