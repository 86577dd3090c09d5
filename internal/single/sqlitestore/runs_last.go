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
			if err := rows.Scan(&l.TriggerID, &l.RunID, &l.State, &l.ScheduledForMs, &finished, &l.Queued, &l.CancelledUnstarted); err != nil {
				return err
			}
			l.FinishedAtMs = ptr(finished)
			out[l.TriggerID] = l
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
