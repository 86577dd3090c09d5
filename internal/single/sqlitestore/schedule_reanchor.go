package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.Reanchorer = (*Store)(nil)

var (
	qScheduleReanchorRead       = query("schedule_reanchor_read")
	qScheduleReanchor           = query("schedule_reanchor")
	qScheduleRecheckStale       = query("schedule_recheck_stale")
	qScheduleRecheckForgetStale = query("schedule_recheck_forget_stale")
)

// ScheduleReanchor moves back the cursors a clock that went back left
// ahead (schedule.Reanchorer), at one reading of the injected clock. The
// rows are read and decided on the read pool, without the write lock:
// while the clock keeps going forward there are none, and a check then
// neither waits for another process's write lock (a scheduler's first
// round behind a long command would only log a failed check) nor writes.
// The moves are written in one BEGIN IMMEDIATE transaction, each fenced on
// the version its row was read with, so a row changed between the read and
// the write keeps its change and is read again by the next check; a power
// loss that undoes them (a routine commit) has the next check make them
// again. A row this host cannot read (a zone its database lacks) cannot be
// decided and is left as it is, without failing the others; but a wait the
// take passes such a row over for (ScheduleRecheckLater) that ends more
// than schedule.UnreadableRecheck from now was written while the clock read
// later, and is ended, so the row is not held back until the clock gets
// there again (the same write, fenced by that bound alone).
func (s *Store) ScheduleReanchor(ctx context.Context) ([]schedule.Reanchored, error) {
	now := s.nowMs()
	waitMs := schedule.UnreadableRecheck.Milliseconds()
	var tickets []schedule.Ticket
	var staleWaits int
	err := s.read(ctx, "look for schedule rows written while the clock read later", func(tx *txn) error {
		var err error
		if tickets, err = scanTickets(ctx, tx, now, nil, qScheduleReanchorRead, now); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, qScheduleRecheckStale, now, waitMs).Scan(&staleWaits)
	})
	if err != nil {
		return nil, err
	}
	type move struct {
		tk schedule.Ticket
		d  schedule.Decision
	}
	var moves []move
	for _, tk := range tickets {
		if d, moved, err := schedule.ReanchorTicket(tk); err == nil && moved {
			moves = append(moves, move{tk: tk, d: d})
		}
	}
	if len(moves) == 0 && staleWaits == 0 {
		return nil, nil
	}
	var out []schedule.Reanchored
	err = s.write(ctx, "move back schedule rows written while the clock read later", routine, func(tx *txn) error {
		out = out[:0]
		if staleWaits > 0 {
			if _, err := tx.ExecContext(ctx, qScheduleRecheckForgetStale, now, waitMs); err != nil {
				return err
			}
		}
		for _, m := range moves {
			res, err := tx.ExecContext(ctx, qScheduleReanchor, m.d.NextFireAtMs, nullable(m.d.NextDueOffset()), now,
				m.tk.TriggerID, m.tk.TriggerRevision, m.tk.StateVersion)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if n == 1 {
				out = append(out, schedule.Reanchored{TriggerID: m.tk.TriggerID, FromMs: *m.tk.NextFireAtMs, ToMs: m.d.NextFireAtMs})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
