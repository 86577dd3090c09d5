package pgstore

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// WorkerStates counts worker sessions by what became of their worker, as
// qinglong_workers reports them: live and taking work, live and draining,
// and expired within a recent window (lost: no heartbeat for a session
// lease, and no end of the session).
type WorkerStates struct {
	Active, Draining, Expired int
}

// WorkerStates reads the live sessions per state and the sessions expired
// within window of database time, that count cut at limit, in one
// statement (sql/monitor.sql, MonitorWorkerStates). Sessions of revoked
// credentials are not counted.
func (r *Runtime) WorkerStates(ctx context.Context, window time.Duration, limit int) (WorkerStates, error) {
	var c WorkerStates
	if limit < 1 || limit > schedule.MonitorLimit {
		return c, qlerror.New(qlerror.Invalid, "monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	if window < time.Millisecond {
		return c, qlerror.New(qlerror.Invalid, "expired-session window %s is under a millisecond", window)
	}
	err := r.pool.QueryRow(ctx, sqlMonitorWorkerStates, window.Milliseconds(), limit).Scan(&c.Active, &c.Draining, &c.Expired)
	if err != nil {
		return c, mapErr(err, "counting worker sessions by state")
	}
	return c, nil
}
