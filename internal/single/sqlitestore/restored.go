package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// RestoredBackupTake returns the snapshot time of the backup this database
// is a copy of (ok) and forgets it in the same write, so only the first
// server started on the copy is told; a database that was never a
// backup's copy, or whose copy was served before, has none. With
// skipMissed, the same write passes over, as schedule.PassRestored, every
// occurrence the copy says was missed up to the store's clock now
// (schedule.RestoredTicket), rather than leaving them to the triggers'
// misfire policies: the old server may have run them after the snapshot.
// A crash before it commits leaves both the mark and the cursors as they
// were, for the next start to do again. passed counts the triggers whose
// occurrences were passed over.
func (s *Store) RestoredBackupTake(ctx context.Context, skipMissed bool) (snapshotMs int64, ok bool, passed int, err error) {
	err = s.write(ctx, "read the backup this database was restored from", durable, func(tx *txn) error {
		ok, passed = false, 0
		switch err := tx.QueryRowContext(ctx, qRestoredBackupTake).Scan(&snapshotMs); {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return err
		}
		ok = true
		if !skipMissed {
			return nil
		}
		now := s.nowMs()
		tickets, err := scanTickets(ctx, tx, now, nil, qScheduleRestoredRead, now)
		if err != nil {
			return err
		}
		for _, tk := range tickets {
			d, moved, err := schedule.RestoredTicket(tk, now)
			if err != nil || !moved {
				// A row this host cannot read (a zone it lacks) is
				// left to the round, which says why it cannot decide it.
				continue
			}
			if _, err := tx.ExecContext(ctx, qScheduleReanchor, d.NextFireAtMs, nullable(d.NextDueOffset()), now,
				tk.TriggerID, tk.TriggerRevision, tk.StateVersion); err != nil {
				return err
			}
			if err := writeLedger(ctx, tx, tk, d.Passed, now); err != nil {
				return err
			}
			passed++
		}
		return nil
	})
	return snapshotMs, ok, passed, err
}
