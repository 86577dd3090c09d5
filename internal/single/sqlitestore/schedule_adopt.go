package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.Adopter = (*Store)(nil)

var (
	qScheduleAdoptRead = query("schedule_adopt_read")
	qScheduleAdopt     = query("schedule_adopt")
)

// ScheduleAdopt starts a trigger's schedule at a handed-over position
// (schedule.Adopter) in one BEGIN IMMEDIATE transaction: the check that
// the row decided nothing here and the write cannot be separated by a
// round, which takes the same write lock to commit. Durable: the handover
// is a definition-like change an operator makes once, and a power loss
// that undid it would start the schedule at the publish again.
func (s *Store) ScheduleAdopt(ctx context.Context, r schedule.AdoptRequest) (schedule.AdoptResult, error) {
	var result schedule.AdoptResult
	err := s.write(ctx, "adopt a handed-over schedule position", durable, func(tx *txn) error {
		var scheduled bool
		var adopted, next *int64
		err := tx.QueryRowContext(ctx, qScheduleAdoptRead, r.TriggerID).Scan(&scheduled, &adopted, &next)
		if errors.Is(err, sql.ErrNoRows) {
			return schedule.TriggerMissing(r.TriggerID)
		}
		if err != nil {
			return err
		}
		if result, err = schedule.AdoptDecision(r.TriggerID, scheduled, adopted, next, r.CursorMs); err != nil || result != schedule.Adopted {
			return err
		}
		res, err := tx.ExecContext(ctx, qScheduleAdopt, r.TriggerID, r.CursorMs, r.DueOffsetMs, s.nowMs())
		if err != nil {
			return err
		}
		return exactlyOne(res, qlerror.Internal, "the schedule row of trigger %s changed within its own write transaction", r.TriggerID)
	})
	return result, err
}
