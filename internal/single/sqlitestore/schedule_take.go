package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

var _ schedule.Store = (*Store)(nil)

// Executor is the executor admitted Attempts are created for.
func (s *Store) Executor() task.Executor { return task.LocalProcess }

// ScheduleTake reads one page of uninitialised, then due, schedule rows in
// the claim order, observed at one reading of the injected clock, passing
// over the rows this host could not read until their recheck
// (ScheduleRecheckLater). It takes
// no lock and writes nothing: the state_version CAS in ScheduleCommit is the
// single-node fence, so two processes may take the same row and exactly one
// commit wins.
func (s *Store) ScheduleTake(ctx context.Context, p schedule.TakeParams) ([]schedule.Ticket, error) {
	tickets, _, err := s.ScheduleTakeHorizon(ctx, p)
	return tickets, err
}

func scanTickets(ctx context.Context, tx *txn, now int64, out []schedule.Ticket, q string, args ...any) ([]schedule.Ticket, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		tk := schedule.Ticket{ObservedAtMs: now}
		sn := &tk.Snapshot
		var next, last, pausedAt, resumedAt sql.NullInt64
		var pol policyCols
		if err := rows.Scan(&sn.ProjectID, &sn.TriggerID, &sn.TriggerRevision, &sn.TriggerContentDigest, &sn.TriggerCreatedAtMs,
			&sn.Cron.Expression, &sn.Cron.Timezone, &sn.Cron.MisfirePolicy, &pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
			&sn.TaskID, &sn.TaskRevision, &sn.TaskContentDigest, &next, &last, &sn.StateVersion, &pausedAt, &resumedAt); err != nil {
			return out, err
		}
		pol.into(&sn.Cron)
		sn.NextFireAtMs, sn.LastScheduledAtMs = ptr(next), ptr(last)
		sn.Pause = schedule.PauseSpanOf(false, ptr(pausedAt), ptr(resumedAt))
		out = append(out, tk)
	}
	return out, rows.Err()
}

func ptr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

func nullable(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
