package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/run"
)

var _ run.LastReader = (*Runtime)(nil)

// RunsLast returns the newest Run of each of triggerIDs that has one, with
// its trigger's overlap facts, in one statement (run.LastReader).
func (r *Runtime) RunsLast(ctx context.Context, triggerIDs []string) (map[string]run.Last, error) {
	if err := run.CheckLastTriggers(triggerIDs); err != nil {
		return nil, err
	}
	out := make(map[string]run.Last, len(triggerIDs))
	if len(triggerIDs) == 0 {
		return out, nil
	}
	rows, err := r.pool.Query(ctx, sqlRunsLast, triggerIDs, run.BacklogCountCap, run.StarvingWindow)
	if err != nil {
		return nil, mapErr(err, "reading the newest runs of triggers")
	}
	var l run.Last
	var state, manual string
	_, err = pgx.ForEachRow(rows, []any{&l.TriggerID, &l.RunID, &state, &l.ScheduledForMs, &l.FinishedAtMs, &l.CreatedAtMs, &l.RerunOf, &manual, &l.Queued, &l.CancelledUnstarted, &l.Project, &l.MaxRunning, &l.ProjectRunning}, func() error {
		l.State, l.Origin = run.State(state), run.OriginOf(manual)
		l.Workers = true
		out[l.TriggerID] = l
		l.FinishedAtMs = nil
		return nil
	})
	if err != nil {
		return nil, mapErr(err, "reading the newest runs of triggers")
	}
	return out, nil
}
