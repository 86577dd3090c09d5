package pgstore

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

var _ run.Reader = (*Runtime)(nil)

// Run listing filters, each served by its runs_*_listing_idx, composed per
// request after sqlRunColumns (sql/runs.sql) so every combination gets a
// plan using its own index rather than one catch-all "$n IS NULL OR …"
// plan that scans the primary key. They stay here because they are
// fragments of one dynamic statement, numbered as they are added.
const (
	sqlRunFilterProject = ` project_id = $%d`
	sqlRunFilterTrigger = ` trigger_id = $%d`
	sqlRunFilterAfter   = ` id < $%d`
	sqlRunFilterFrom    = ` id >= $%d`
	sqlRunFilterTo      = ` id < $%d`
	// A bound token's or console user's projects, by name: filtered
	// before the page is cut, so the page is full of their Runs.
	sqlRunFilterInProjects = ` project_id IN (SELECT ip.id FROM qinglong.projects ip WHERE ip.name = ANY($%d::text[]))`
	// A listing by worker orders by its attempts' run ids, which are the
	// Runs' ids: sqlRunsHeldBy says why.
	sqlRunHeldOrder = ` ORDER BY held.run_id DESC LIMIT $%d`
	// Newest first: ids are UUIDv7, so id order is admission order.
	sqlRunListOrder = ` ORDER BY id DESC LIMIT $%d`
)

// sqlRunFilterState is the filter of each state a listing accepts
// (run.Reachable). The state is written into the statement, not bound:
// pgx prepares and caches each statement, and after five calls on a
// connection PostgreSQL settles on the generic plan, which does not know
// the state, costs them all alike and took a backward pass of runs_pkey
// over the whole history for a state with no Run. Each state is thus its
// own statement, planned for its own frequency. The filter also names the
// condition of its index (pg-0041), since the planner uses a partial index
// only for a WHERE that implies it: a finished state is a range of
// runs_finished_state_idx (state, id DESC), or of
// runs_project_finished_state_idx within a project, or of
// runs_trigger_finished_state_idx within a trigger (pg-0044); an
// unfinished one a range of runs_unfinished_state_idx, which holds only
// the unfinished Runs, or the trigger's unfinished Runs in
// runs_unfinished_trigger_idx. None walks the history of other states.
var sqlRunFilterState = func() map[run.State]string {
	out := map[run.State]string{}
	for _, st := range run.Reachable {
		cond := ` AND state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`
		if st.Finished() {
			cond = ` AND state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`
		}
		out[st] = ` state = '` + string(st) + `'` + cond
	}
	return out
}()

// lastRunID is above every Run id: the cursor of a listing by worker's
// first page.
const lastRunID = "ffffffff-ffff-ffff-ffff-ffffffffffff"

// sqlRunGet is one run by id.
var sqlRunGet = sqlRunColumns + ` WHERE id = $1`

// RunList returns one page of runs, newest first, and the cursor of the
// next page ("" when this is the last).
func (r *Runtime) RunList(ctx context.Context, p run.ListParams) ([]run.Run, string, error) {
	if p.Limit == 0 {
		p.Limit = run.DefaultPageSize
	}
	if p.Limit < 1 || p.Limit > run.MaxPageSize {
		return nil, "", qlerror.New(qlerror.Invalid, "run page size %d is outside 1–%d", p.Limit, run.MaxPageSize)
	}
	workerID := ""
	if p.Worker != "" {
		err := r.pool.QueryRow(ctx, sqlWorkerIDByName, p.Worker).Scan(&workerID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, "", run.NoSuchWorker(p.Worker)
		}
		if err != nil {
			return nil, "", mapErr(err, "finding worker "+p.Worker)
		}
	}
	query, args, err := runListQuery(p, workerID)
	if err != nil {
		return nil, "", err
	}
	rows, err := r.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, "", mapErr(err, "listing runs")
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (run.Run, error) { return scanRun(row) })
	if err != nil {
		return nil, "", mapErr(err, "listing runs")
	}
	next := ""
	if len(list) > p.Limit {
		list = list[:p.Limit]
		next = list[len(list)-1].ID
	}
	return list, next, nil
}

// runListQuery is the listing statement for p's filters, with workerID
// the id of the worker p.Worker names, and its arguments.
func runListQuery(p run.ListParams, workerID string) (string, []any, error) {
	var where []string
	var args []any
	add := func(fragment string, v any) {
		args = append(args, v)
		where = append(where, strings.Replace(fragment, "%d", strconv.Itoa(len(args)), 1))
	}
	if err := p.CheckIDs(); err != nil {
		return "", nil, err
	}
	q, order, joiner := sqlRunColumns, sqlRunListOrder, " WHERE"
	after := p.After
	if p.Worker != "" {
		// The cursor bounds the worker's attempts read, not the Runs
		// fetched from them, so a later page starts where the last ended.
		q, order, joiner = sqlRunsHeldBy, sqlRunHeldOrder, " AND"
		cursor := lastRunID
		if after != "" {
			cursor = after
		}
		args = append(args, workerID, cursor)
		after = ""
	}
	for _, f := range []struct{ value, fragment string }{
		{p.ProjectID, sqlRunFilterProject},
		{p.TriggerID, sqlRunFilterTrigger},
		{after, sqlRunFilterAfter},
	} {
		if f.value != "" {
			add(f.fragment, f.value)
		}
	}
	if len(p.InProjects) > 0 {
		add(sqlRunFilterInProjects, p.InProjects)
	}
	if err := p.CheckWindow(); err != nil {
		return "", nil, err
	}
	if p.FromMs != 0 {
		add(sqlRunFilterFrom, ids.FloorAt(p.FromMs))
	}
	if p.ToMs != 0 {
		add(sqlRunFilterTo, ids.FloorAt(p.ToMs))
	}
	if err := p.CheckState(); err != nil {
		return "", nil, err
	}
	if p.State != "" {
		where = append(where, sqlRunFilterState[p.State])
	}
	if len(where) > 0 {
		q += joiner + strings.Join(where, " AND")
	}
	args = append(args, p.Limit+1)
	return q + strings.Replace(order, "%d", strconv.Itoa(len(args)), 1), args, nil
}

// RunGet returns a run with its attempts and events, read in one
// repeatable-read snapshot so the three agree.
func (r *Runtime) RunGet(ctx context.Context, id string) (run.Detail, error) {
	if err := ids.Validate("run id", id); err != nil {
		return run.Detail{}, schedule.NotARunID(id, err)
	}
	tx, err := r.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return run.Detail{}, mapErr(err, "reading run "+id)
	}
	defer rollbackTx(ctx, tx)
	var d run.Detail
	d.Run, err = scanRun(tx.QueryRow(ctx, sqlRunGet, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return run.Detail{}, schedule.RunNotFound(id)
	}
	if err != nil {
		return run.Detail{}, mapErr(err, "reading run "+id)
	}
	rows, err := tx.Query(ctx, sqlRunAttempts, id)
	if err != nil {
		return run.Detail{}, mapErr(err, "reading the attempts of run "+id)
	}
	if d.Attempts, err = pgx.CollectRows(rows, scanAttempt); err != nil {
		return run.Detail{}, mapErr(err, "reading the attempts of run "+id)
	}
	rows, err = tx.Query(ctx, sqlRunEvents, id)
	if err != nil {
		return run.Detail{}, mapErr(err, "reading the events of run "+id)
	}
	d.Events, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (run.Event, error) {
		var e run.Event
		err := row.Scan(&e.RunID, &e.Seq, &e.Name, &e.Payload, &e.CreatedAtMs)
		return e, err
	})
	if err != nil {
		return run.Detail{}, mapErr(err, "reading the events of run "+id)
	}
	rows, err = tx.Query(ctx, sqlRunsRerunAs, id, run.MaxRerunAs)
	if err != nil {
		return run.Detail{}, mapErr(err, "reading the re-runs of run "+id)
	}
	if d.RerunAs, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return run.Detail{}, mapErr(err, "reading the re-runs of run "+id)
	}
	if d.Run.State == run.Queued {
		if d.Waiting, err = archivedWaiting(ctx, tx, d.Run); err != nil {
			return run.Detail{}, mapErr(err, "reading why run "+id+" waits")
		}
	}
	if d.Run.State == run.Queued && d.Waiting == nil {
		if d.Waiting, err = runWaiting(ctx, tx, d.Run); err != nil {
			return run.Detail{}, mapErr(err, "reading why run "+id+" waits")
		}
	}
	return d, nil
}

// archivedWaiting is project_archived for a queued Run r of an archived
// project, which no worker is granted whatever its state; nil for a Run of
// an active project.
func archivedWaiting(ctx context.Context, tx pgx.Tx, r run.Run) (*run.Waiting, error) {
	var project string
	err := tx.QueryRow(ctx, sqlRunArchived, r.ProjectID).Scan(&project)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &run.Waiting{Reason: run.WaitProjectArchived, Project: project}, nil
}

// runWaiting says why no worker can take the queued Run r now, nil when
// one can (it is granted at that worker's next pull) or when r does not
// run on workers. It reads the live sessions as Dispatch would see them at
// this instant: a worker that connects, frees a slot or changes its
// labels afterwards shows at the next read. Workers carrying the labels
// of which none reads the project's env, which the Run's project has, come
// right after the labels: like them, only another worker lets it run. The worker reasons come
// before the overlap policy's: a Run held behind an earlier one of its trigger
// also needs a worker once that one finishes. Its project's cap comes
// after the want of a worker and before busy workers: a Run of a project
// at its maxRunning is not granted whatever slots are free.
func runWaiting(ctx context.Context, tx pgx.Tx, r run.Run) (*run.Waiting, error) {
	var w run.Waiting
	var live, takes, matching, grantable int
	var free bool
	var previous, overlap *string
	err := tx.QueryRow(ctx, sqlRunWaiting, r.TaskID, r.TaskRevision, run.MaxWaitingLabelSets, r.ID).
		Scan(&w.Labels, &live, &takes, &matching, &grantable, &free, &w.WorkerLabels, &previous, &overlap)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	case live == 0:
		w.Reason = run.WaitNoWorker
	case takes == 0:
		w.Reason, w.Workers = run.WaitWorkersDraining, live
	case matching == 0:
		w.Reason, w.Workers = run.WaitNoMatchingWorker, takes
	case grantable == 0:
		w.Reason, w.Workers, w.Reads = run.WaitWorkersTooOld, matching, workerproto.ReadProjectEnv
	default:
		capped, err := projectBusy(ctx, tx, r.ProjectID)
		if err != nil || capped != nil {
			return capped, err
		}
		switch {
		case !free:
			w.Reason, w.Workers = run.WaitWorkersBusy, matching
		case previous != nil:
			w.Reason, w.PreviousRun = run.WaitPrevious, *previous
			if overlap != nil {
				w.Overlap = *overlap
			}
		default:
			return nil, nil
		}
	}
	if w.Reason != run.WaitNoMatchingWorker {
		w.WorkerLabels = nil
	}
	return &w, nil
}

// projectBusy is project_busy when the project projectID runs its
// maxRunning Runs, naming the triggers holding its share; nil otherwise.
func projectBusy(ctx context.Context, tx pgx.Tx, projectID string) (*run.Waiting, error) {
	w := run.Waiting{Reason: run.WaitProjectBusy}
	if err := tx.QueryRow(ctx, sqlRunProjectCap, projectID).Scan(&w.Project, &w.MaxRunning, &w.Running); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	if w.MaxRunning == 0 || w.Running < w.MaxRunning {
		return nil, nil
	}
	rows, err := tx.Query(ctx, sqlProjectSlotHolders, projectID)
	if err != nil {
		return nil, err
	}
	holders, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (run.SlotHolder, error) {
		var h run.SlotHolder
		err := row.Scan(&h.TriggerID, &h.Project, &h.Trigger, &h.Runs)
		return h, err
	})
	if err != nil {
		return nil, err
	}
	if len(holders) > run.MaxSlotHolders {
		w.MoreHolders = len(holders) - run.MaxSlotHolders
		holders = holders[:run.MaxSlotHolders]
	}
	w.Holders = holders
	return &w, nil
}

func scanRun(row pgx.Row) (run.Run, error) {
	var x run.Run
	var triggerID, projectName, triggerName, taskName, rerunOf, manual, errorCode, workerName, triggerTitle *string
	var triggerRev, queuedAt, dueAt *int64
	var state string
	err := row.Scan(&x.ID, &x.ProjectID, &x.TaskID, &x.TaskRevision, &triggerID, &triggerRev, &x.ExecutionRevisionID,
		&x.IdempotencyKey, &x.ScheduledForMs, &dueAt, &state, &x.Version, &x.LastEventSeq, &x.CreatedAtMs, &queuedAt, &x.UpdatedAtMs, &x.FinishedAtMs,
		&projectName, &triggerName, &taskName, &rerunOf, &manual, &errorCode, &x.ExitCode, &workerName, &triggerTitle, &x.RanMs)
	x.TriggerTitle = deref(triggerTitle)
	x.TriggerID, x.TriggerRevision, x.QueuedAtMs = deref(triggerID), derefInt(triggerRev), derefInt(queuedAt)
	x.ProjectName, x.TriggerName, x.TaskName = deref(projectName), deref(triggerName), deref(taskName)
	x.DueAtMs, x.RerunOf = derefInt(dueAt), deref(rerunOf)
	x.Origin, x.ErrorCode, x.WorkerName = run.OriginOf(deref(manual)), deref(errorCode), deref(workerName)
	x.State = run.State(state)
	x.RanUntilLastHeard = endedWhenLastHeard(x.State, x.ErrorCode)
	return x, err
}

func scanAttempt(row pgx.CollectableRow) (run.Attempt, error) {
	var a run.Attempt
	var state string
	var errorCode, errorMessage, workerName, logPath *string
	err := row.Scan(&a.ID, &a.RunID, &a.Number, &a.Executor, &state, &a.ExitCode, &errorCode, &errorMessage, &workerName,
		&a.CreatedAtMs, &a.StartedAtMs, &a.FinishedAtMs, &logPath, &a.LogBytes, &a.LogTruncated, &a.LogRemoved)
	a.State, a.ErrorCode, a.LogPath = run.AttemptState(state), deref(errorCode), deref(logPath)
	a.ErrorMessage, a.WorkerName = deref(errorMessage), deref(workerName)
	return a, err
}
