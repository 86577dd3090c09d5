package pgstore

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// WorkerStates counts worker sessions by what became of their worker, as
// qinglong_workers reports them: live and taking work, live and draining,
// and, of the sessions expired within a recent window (no heartbeat for a
// session lease, and no end of the session), those whose worker came back
// or may still (Expired) and those whose worker did not (Lost).
type WorkerStates struct {
	Active, Draining, Expired, Lost int
}

// WorkerStates reads the live sessions per state and the sessions expired
// within window of database time, split by whether their worker
// registered again within grace of the expiry (lost once grace passed
// without it), those two counts cut at limit together, in one statement
// (sql/monitor.sql, MonitorWorkerStates). Sessions of revoked credentials
// are not counted.
func (r *Runtime) WorkerStates(ctx context.Context, window, grace time.Duration, limit int) (WorkerStates, error) {
	var c WorkerStates
	if limit < 1 || limit > schedule.MonitorLimit {
		return c, qlerror.New(qlerror.Invalid, "monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	if window < time.Millisecond {
		return c, qlerror.New(qlerror.Invalid, "expired-session window %s is under a millisecond", window)
	}
	if grace < 0 || grace > window {
		return c, qlerror.New(qlerror.Invalid, "a worker's grace to come back, %s, is outside 0–%s (the expired-session window)", grace, window)
	}
	err := r.pool.QueryRow(ctx, sqlMonitorWorkerStates, window.Milliseconds(), limit, grace.Milliseconds()).Scan(&c.Active, &c.Draining, &c.Expired, &c.Lost)
	if err != nil {
		return c, mapErr(err, "counting worker sessions by state")
	}
	return c, nil
}
