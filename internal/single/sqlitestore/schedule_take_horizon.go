package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var qScheduleNextDue = query("schedule_next_due")

// ScheduleTakeHorizon is ScheduleTake plus, in the same read transaction,
// the injected clock's reading the page was observed at and the earliest
// cursor of an enabled row due strictly after it.
func (s *Store) ScheduleTakeHorizon(ctx context.Context, p schedule.TakeParams) ([]schedule.Ticket, schedule.TakeHorizon, error) {
	h := schedule.TakeHorizon{NowMs: s.nowMs()}
	if p.Limit < 1 || p.Limit > schedule.MaxPageSize {
		return nil, h, qlerror.New(qlerror.Invalid, "schedule take: limit %d is outside 1–%d", p.Limit, schedule.MaxPageSize)
	}
	now := h.NowMs
	var out []schedule.Ticket
	err := s.read(ctx, "take schedule page", func(tx *txn) error {
		var err error
		if out, err = scanTickets(ctx, tx, now, out, qScheduleTakeUninitialised, now, p.Limit); err != nil {
			return err
		}
		if len(out) < p.Limit {
			if out, err = scanTickets(ctx, tx, now, out, qScheduleTakeDue, now, now, p.Limit-len(out)); err != nil {
				return err
			}
		}
		var next sql.NullInt64
		if err := tx.QueryRowContext(ctx, qScheduleNextDue, now).Scan(&next); err != nil {
			return err
		}
		h.NextDueMs = ptr(next)
		return nil
	})
	return out, h, err
}
