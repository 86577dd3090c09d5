package sqlitestore

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.Rechecker = (*Store)(nil)

var qScheduleRecheckLater = query("schedule_recheck_later")

// ScheduleRecheckLater has the take pass over the rows of tickets this host
// could not read or decide until after has passed on the injected clock, each only
// while it still has its ticket's state version
// (schedule_recheck_later.sql). The take holds nothing on a single node,
// so without the wait such rows, due before every other row for as long as
// their cursors cannot move, would fill each page. One routine
// transaction: a power loss that undoes it only has the rows taken again.
func (s *Store) ScheduleRecheckLater(ctx context.Context, tickets []schedule.Ticket, after time.Duration) (int, error) {
	until := s.nowMs() + after.Milliseconds()
	waiting := 0
	err := s.write(ctx, "pass over unreadable schedule rows", routine, func(tx *txn) error {
		waiting = 0
		for _, tk := range tickets {
			res, err := tx.ExecContext(ctx, qScheduleRecheckLater, until, tk.TriggerID, tk.StateVersion)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			waiting += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return waiting, nil
}
