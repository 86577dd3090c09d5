package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/run"
)

var _ run.LastReader = (*Store)(nil)

// RunsLast returns the newest Run of each of triggerIDs that has one, with
// its trigger's overlap facts, in one read (run.LastReader).
func (s *Store) RunsLast(ctx context.Context, triggerIDs []string) (map[string]run.Last, error) {
	if err := run.CheckLastTriggers(triggerIDs); err != nil {
		return nil, err
	}
	out := make(map[string]run.Last, len(triggerIDs))
	if len(triggerIDs) == 0 {
		return out, nil
	}
	list, err := json.Marshal(triggerIDs)
	if err != nil {
		return nil, err
	}
	err = s.read(ctx, "read the newest runs of triggers", func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qRunsLast, string(list), run.BacklogCountCap, run.StarvingWindow)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l run.Last
			var finished sql.NullInt64
			var manual string
			if err := rows.Scan(&l.TriggerID, &l.RunID, &l.State, &l.ScheduledForMs, &finished, &l.CreatedAtMs, &l.RerunOf, &manual, &l.Queued, &l.CancelledUnstarted, &l.Project, &l.MaxRunning, &l.ProjectRunning); err != nil {
				return err
			}
			l.FinishedAtMs, l.Origin = ptr(finished), run.OriginOf(manual)
			out[l.TriggerID] = l
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return withSlotHolders(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// withSlotHolders gives each trigger of out with Runs queued the triggers
// holding the server's slots, read once (slotHolders: at most
// --concurrency Runs) and only when some trigger has Runs queued.
func withSlotHolders(ctx context.Context, tx *txn, out map[string]run.Last) error {
	queued := false
	for _, l := range out {
		queued = queued || l.Queued > 0
	}
	if !queued {
		return nil
	}
	holders, more, err := slotHolders(ctx, tx, "")
	if err != nil {
		return err
	}
	for id, l := range out {
		if l.Queued > 0 {
			l.SlotHolders, l.MoreSlotHolders = holders, more
			out[id] = l
		}
	}
	return nil
}
