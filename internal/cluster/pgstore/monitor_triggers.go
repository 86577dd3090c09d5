package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.TriggerActivityReader = (*Runtime)(nil)

// TriggerActivity reads, in one statement, the first limit enabled
// triggers of active projects with their newest Run's creation, their
// latest success, their next due instant and whether they are paused, and
// how many such triggers
// there are (up to schedule.MonitorLimit; sql/monitor.sql).
func (r *Runtime) TriggerActivity(ctx context.Context, limit int) (schedule.TriggerActivitySnapshot, error) {
	var snap schedule.TriggerActivitySnapshot
	if limit < 1 || limit > schedule.MonitorLimit {
		return snap, qlerror.New(qlerror.Invalid, "per-trigger monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	rows, err := r.pool.Query(ctx, sqlMonitorTriggerActivity, limit, schedule.MonitorLimit)
	if err != nil {
		return snap, mapErr(err, "reading per-trigger monitoring")
	}
	defer rows.Close()
	for rows.Next() {
		var a schedule.TriggerActivity
		if err := rows.Scan(&a.Project, &a.Trigger, &a.LastRunAtMs, &a.LastSuccessAtMs, &a.NextFireAtMs, &a.Paused, &snap.Eligible); err != nil {
			return snap, mapErr(err, "reading per-trigger monitoring")
		}
		snap.Triggers = append(snap.Triggers, a)
	}
	if err := rows.Err(); err != nil {
		return snap, mapErr(err, "reading per-trigger monitoring")
	}
	return snap, nil
}
