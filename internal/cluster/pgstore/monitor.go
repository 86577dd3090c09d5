package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	_ schedule.Monitor       = (*Runtime)(nil)
	_ schedule.BacklogReader = (*Runtime)(nil)
)

// Backlog reads the due rows no claim holds, as Monitor does, of the
// projects named in alone when in is not empty, counted up to limit.
func (r *Runtime) Backlog(ctx context.Context, limit int, in []string) (schedule.Backlog, error) {
	var b schedule.Backlog
	if limit < 1 || limit > schedule.MonitorLimit {
		return b, qlerror.New(qlerror.Invalid, "backlog limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	var err error
	if len(in) == 0 {
		var nowMs int64
		err = r.pool.QueryRow(ctx, sqlMonitorBacklog, limit).Scan(&nowMs, &b.Due, &b.OldestDueAtMs)
	} else {
		err = r.pool.QueryRow(ctx, sqlMonitorBacklogInProjects, limit, in).Scan(&b.Due, &b.OldestDueAtMs)
	}
	return b, mapErr(err, "reading the schedule backlog")
}

// Monitor reads the backlog of due, unclaimed schedule rows and the
// unfinished Runs per state, every count cut at limit, and when the
// longest-waiting queued Run was queued (sql/monitor.sql).
func (r *Runtime) Monitor(ctx context.Context, limit int) (schedule.MonitorSnapshot, error) {
	snap := schedule.MonitorSnapshot{Runs: map[run.State]int{}}
	if limit < 1 || limit > schedule.MonitorLimit {
		return snap, qlerror.New(qlerror.Invalid, "monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	if err := r.pool.QueryRow(ctx, sqlMonitorBacklog, limit).Scan(&snap.NowMs, &snap.Due, &snap.OldestDueAtMs); err != nil {
		return snap, mapErr(err, "reading the schedule backlog")
	}
	states := make([]string, len(schedule.UnfinishedStates))
	for i, s := range schedule.UnfinishedStates {
		states[i] = string(s)
	}
	rows, err := r.pool.Query(ctx, sqlMonitorRunStates, states, limit)
	if err != nil {
		return snap, mapErr(err, "counting unfinished Runs")
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return snap, mapErr(err, "counting unfinished Runs")
		}
		snap.Runs[run.State(state)] = n
	}
	if err := rows.Err(); err != nil {
		return snap, mapErr(err, "counting unfinished Runs")
	}
	if err := r.pool.QueryRow(ctx, sqlMonitorOldestQueued).Scan(&snap.OldestQueuedAtMs, &snap.OldestBackfillQueuedAtMs); err != nil {
		return snap, mapErr(err, "reading the oldest queued Run")
	}
	return snap, nil
}

// WorkerCapacity is the live worker sessions (active, lease not passed in
// database time) and their free slots (capacity − running).
type WorkerCapacity struct {
	Sessions  int
	FreeSlots int
}

// WorkerCapacity reads the live sessions and their free slots.
func (r *Runtime) WorkerCapacity(ctx context.Context) (WorkerCapacity, error) {
	var c WorkerCapacity
	if err := r.pool.QueryRow(ctx, sqlMonitorWorkers).Scan(&c.Sessions, &c.FreeSlots); err != nil {
		return c, mapErr(err, "reading worker sessions")
	}
	return c, nil
}

// UnplaceableRuns counts the queued Runs whose placement no live worker
// taking work carries (every queued Run while none takes work), or, of a
// project with an env, no such worker that reads project env carries, at
// most limit: Runs no pull will grant until another worker connects
// (one with their labels, or one reading project env), however many
// slots are free.
func (r *Runtime) UnplaceableRuns(ctx context.Context, limit int) (int, error) {
	if limit < 1 || limit > schedule.MonitorLimit {
		return 0, qlerror.New(qlerror.Invalid, "monitor limit %d is outside 1–%d", limit, schedule.MonitorLimit)
	}
	var n int
	if err := r.pool.QueryRow(ctx, sqlMonitorUnplaceable, limit).Scan(&n); err != nil {
		return 0, mapErr(err, "counting the queued Runs no worker can take")
	}
	return n, nil
}
