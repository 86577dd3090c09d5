package console

import "context"

// Replica is one cluster replica as the overview shows it: its heartbeat
// row. Live means its last heartbeat has not expired and it did not stop.
type Replica struct {
	ID, Host, Version         string
	PID                       int64
	StartedAtMs, LastSeenAtMs int64
	Live                      bool
}

// replicaSet is the overview's replicas: how many are live, and the rows.
type replicaSet struct {
	Live int
	List []Replica
}

// replicas reads the replicas for the overview; nil (nothing shown) on
// profiles without them or when the read fails, which is logged.
func (c *Console) replicas(ctx context.Context) *replicaSet {
	if c.cfg.Replicas == nil {
		return nil
	}
	list, err := c.cfg.Replicas(ctx)
	if err != nil {
		c.cfg.Log.Warn("console: listing replicas", "code", CodeReplicasFailed, "err", err)
		return nil
	}
	s := &replicaSet{List: list}
	for _, x := range list {
		if x.Live {
			s.Live++
		}
	}
	return s
}
