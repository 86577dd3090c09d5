package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var qMonitorTriggerActivity = query("monitor_trigger_activity")

var _ schedule.TriggerActivityReader = (*Store)(nil)

// TriggerActivity reads, in one statement, the first limit enabled
// triggers of active projects with their newest Run's creation, their
// latest success, their next due instant and whether they are paused,
// and how many such triggers
// there are (up to schedule.MonitorLimit).
func (s *Store) TriggerActivity(ctx context.Context, limit int) (schedule.TriggerActivitySnapshot, error) {
	var snap schedule.TriggerActivitySnapshot
	if limit < 1 || limit > schedule.MonitorLimit {
		return snap, qlerror.New(qlerror.Invalid, "per-trigger monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	err := s.read(ctx, "read per-trigger monitoring", func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qMonitorTriggerActivity, limit, schedule.MonitorLimit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a schedule.TriggerActivity
			var lastRun, lastSuccess, next sql.NullInt64
			if err := rows.Scan(&a.Project, &a.Trigger, &lastRun, &lastSuccess, &next, &a.Paused, &snap.Eligible); err != nil {
				return err
			}
			a.LastRunAtMs, a.LastSuccessAtMs, a.NextFireAtMs = ptr(lastRun), ptr(lastSuccess), ptr(next)
			snap.Triggers = append(snap.Triggers, a)
		}
		return rows.Err()
	})
	return snap, err
}
