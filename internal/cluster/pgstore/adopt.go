package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.Adopter = (*Admin)(nil)

// ScheduleAdopt starts a trigger's schedule at a handed-over position
// (schedule.Adopter) as the admin role, which publishes the triggers it
// is run right after: in one SERIALIZABLE transaction (as publishing and
// pausing) the row is locked, found undecided here, and written; it wakes
// every replica's scheduler, since the adopted cursor may be due long
// before the next due time they know of.
func (a *Admin) ScheduleAdopt(ctx context.Context, r schedule.AdoptRequest) (schedule.AdoptResult, error) {
	var result schedule.AdoptResult
	err := serializable(ctx, a.pool, func(tx pgx.Tx) error {
		var scheduled bool
		var adopted, next *int64
		err := tx.QueryRow(ctx, sqlAdoptRead, r.TriggerID).Scan(&scheduled, &adopted, &next)
		if errors.Is(err, pgx.ErrNoRows) {
			return schedule.TriggerMissing(r.TriggerID)
		}
		if err != nil {
			return err
		}
		if result, err = schedule.AdoptDecision(r.TriggerID, scheduled, adopted, next, r.CursorMs); err != nil || result != schedule.Adopted {
			return err
		}
		var id string
		if err := tx.QueryRow(ctx, sqlAdoptWrite, r.TriggerID, r.CursorMs, r.DueOffsetMs).Scan(&id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, sqlNotifySchedulesChanged, SchedulesChangedChannel)
		return err
	})
	return result, mapErr(err, "adopting a handed-over schedule position")
}
