package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.Reanchorer = (*Runtime)(nil)

// ScheduleReanchor moves back the cursors a database clock set back left
// ahead (schedule.Reanchorer), in one transaction: it locks the schedule
// rows last written while the clock read later (sql/reanchor.sql,
// ReanchorRead), decides each at the clock it read (schedule.ReanchorTicket)
// and writes the moved cursors, giving back every claim those rows hold
// (ReanchorWrite). A claim taken while the clock read later has its lease
// in that future: given back, the row can be claimed again at once, and
// its holder's commit fails its fence. When it wrote a row it wakes every
// replica's scheduler (SchedulesChangedChannel): a moved cursor may be due
// long before the next due time they know of.
func (r *Runtime) ScheduleReanchor(ctx context.Context) ([]schedule.Reanchored, error) {
	var moved []schedule.Reanchored
	err := inTx(ctx, r.pool, func(tx pgx.Tx) error {
		moved = nil
		rows, err := tx.Query(ctx, sqlReanchorRead)
		if err != nil {
			return err
		}
		read, err := pgx.CollectRows(rows, scanReanchor)
		if err != nil {
			return err
		}
		var w reanchorWrite
		from := map[string]schedule.Reanchored{}
		for _, row := range read {
			// A cron this build cannot read (a zone its zone database
			// lacks, published by a newer one) leaves the cursor where it
			// is, for a replica that can read it; the other rows must not
			// wait for it.
			d, moves, err := schedule.ReanchorTicket(row.ticket)
			moves = moves && err == nil
			if !moves && !row.claimed {
				continue
			}
			w.add(row.ticket, moves, d)
			if moves {
				from[row.ticket.TriggerID] = schedule.Reanchored{TriggerID: row.ticket.TriggerID, FromMs: *row.ticket.NextFireAtMs, ToMs: d.NextFireAtMs}
			}
		}
		if len(w.ids) == 0 {
			return nil
		}
		rows, err = tx.Query(ctx, sqlReanchorWrite, w.ids, w.versions, w.moves, w.cursors, w.offsets)
		if err != nil {
			return err
		}
		written, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, id := range written {
			if m, ok := from[id]; ok {
				moved = append(moved, m)
			}
		}
		if len(written) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, sqlNotifySchedulesChanged, SchedulesChangedChannel)
		return err
	})
	if err != nil {
		return nil, mapErr(err, "moving back the cursors a clock set back left ahead")
	}
	return moved, nil
}

// reanchorRow is one row ReanchorRead locked: its ticket observed at the
// clock the read sampled, and whether it holds a claim.
type reanchorRow struct {
	ticket  schedule.Ticket
	claimed bool
}

func scanReanchor(row pgx.CollectableRow) (reanchorRow, error) {
	var out reanchorRow
	var ts ticketScan
	err := row.Scan(ts.dest(&out.claimed, &ts.tk.ObservedAtMs)...)
	out.ticket = ts.ticket()
	return out, err
}

// reanchorWrite are ReanchorWrite's arrays, one element per row to write.
type reanchorWrite struct {
	ids              []string
	versions         []int64
	moves            []bool
	cursors, offsets []*int64
}

// add writes tk's row: its cursor moved to d's when moves, its claim given
// back either way.
func (w *reanchorWrite) add(tk schedule.Ticket, moves bool, d schedule.Decision) {
	w.ids = append(w.ids, tk.TriggerID)
	w.versions = append(w.versions, tk.StateVersion)
	w.moves = append(w.moves, moves)
	if moves {
		next := d.NextFireAtMs
		w.cursors, w.offsets = append(w.cursors, &next), append(w.offsets, d.NextDueOffset())
	} else {
		w.cursors, w.offsets = append(w.cursors, nil), append(w.offsets, nil)
	}
}
