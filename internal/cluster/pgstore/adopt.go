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
func (a *Admin) ScheduleAdopt(ctx context.Context, r schedule.AdoptRequest) error {
	err := serializable(ctx, a.pool, func(tx pgx.Tx) error {
		var scheduled bool
		err := tx.QueryRow(ctx, sqlAdoptRead, r.TriggerID).Scan(&scheduled)
		if errors.Is(err, pgx.ErrNoRows) {
			return schedule.TriggerMissing(r.TriggerID)
		}
		if err != nil {
			return err
		}
		if scheduled {
			return schedule.AdoptOverScheduled(r.TriggerID)
		}
		var id string
		if err := tx.QueryRow(ctx, sqlAdoptWrite, r.TriggerID, r.CursorMs, r.DueOffsetMs).Scan(&id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, sqlNotifySchedulesChanged, SchedulesChangedChannel)
		return err
	})
	return mapErr(err, "adopting a handed-over schedule position")
}
