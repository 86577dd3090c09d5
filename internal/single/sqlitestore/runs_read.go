package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ run.Reader = (*Store)(nil)

// RunList returns one page of runs, newest first, and the cursor of the
// next page ("" when done).
func (s *Store) RunList(ctx context.Context, p run.ListParams) ([]run.Run, string, error) {
	limit, err := pageLimit(p.Limit)
	if err != nil {
		return nil, "", err
	}
	if err := p.CheckIDs(); err != nil {
		return nil, "", err
	}
	if err := p.CheckWindow(); err != nil {
		return nil, "", err
	}
	if err := p.CheckState(); err != nil {
		return nil, "", err
	}
	if p.Worker != "" {
		return nil, "", run.NoWorkersToFilterBy(p.Worker)
	}
	q, args := runListQuery(p, limit)
	var out []run.Run
	err = s.read(ctx, "list runs", func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRun(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// Run listing filters, composed after qRunsList for the ones a request
// gives (see queries/runs_list.sql for why).
const (
	runFilterProject = ` project_id = ?`
	// Among the unfinished Runs of a state, and among a trigger's Runs, the
	// project is a filter (the unary + keeps SQLite from taking
	// runs_project or runs_project_finished_state for it): the planner
	// would otherwise walk the project's whole history in id order rather
	// than sort the few unfinished Runs of the state, or take the project's
	// Runs of a state over the trigger's.
	runFilterProjectAsFilter = ` +project_id = ?`
	runFilterTrigger         = ` trigger_id = ?`
	// A bound token's or console user's projects, by name (a JSON array):
	// filtered before the page is cut, so the page is full of their Runs.
	runFilterInProjects = ` project_id IN (SELECT p.id FROM projects p WHERE p.name IN (SELECT value FROM json_each(?)))`
	// A state filter names its index's condition too: SQLite uses a
	// partial index only for a WHERE that implies the index's condition,
	// which a bound parameter alone never does. A finished state is a range
	// of runs_finished_state (state, id), or of runs_project_finished_state
	// (project_id, state, id) within a project; an unfinished one of
	// runs_unfinished_state: a listing never walks the history for a state
	// with few Runs. Within a trigger a finished state is a range of
	// runs_trigger_finished_state (trigger_id, state, id), and an
	// unfinished one a filter over runs_unfinished_trigger, the trigger's
	// few unfinished Runs, whose condition the filter names as that index
	// does: neither walks the trigger's history.
	runFilterFinishedState            = ` state = ? AND state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`
	runFilterUnfinishedState          = ` state = ? AND state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')`
	runFilterUnfinishedStateInTrigger = ` state = ? AND state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`
	runFilterBefore                   = ` id < ?`
	runFilterFrom                     = ` id >= ?`
	// Newest first: ids are UUIDv7, so id order is admission order.
	runListOrder = ` ORDER BY id DESC LIMIT ?`
	// The page's ids are found first, as a list SQLite fills before it
	// returns the first Run: the driver interrupts a statement whose
	// context ends only while its first step runs, so a walk for the
	// page's later Runs, were it left to the steps that return them,
	// would run to its end past the request's limit. The Runs are then
	// read by id, at most a page of them.
	runListPage      = `SELECT id FROM runs`
	runListPageOrder = ` ORDER BY id DESC`
)

// runListQuery is the listing statement for p's filters and its
// arguments, one more row than limit to tell whether a page follows.
func runListQuery(p run.ListParams, limit int) (string, []any) {
	var where []string
	var args []any
	add := func(fragment string, v any) {
		where = append(where, fragment)
		args = append(args, v)
	}
	switch {
	case p.ProjectID == "":
	case p.TriggerID != "" || (p.State != "" && !p.State.Finished()):
		add(runFilterProjectAsFilter, p.ProjectID)
	default:
		add(runFilterProject, p.ProjectID)
	}
	if p.TriggerID != "" {
		add(runFilterTrigger, p.TriggerID)
	}
	if len(p.InProjects) > 0 {
		add(runFilterInProjects, namesJSON(p.InProjects))
	}
	switch {
	case p.State == "":
	case p.State.Finished():
		add(runFilterFinishedState, string(p.State))
	case p.TriggerID != "":
		add(runFilterUnfinishedStateInTrigger, string(p.State))
	default:
		add(runFilterUnfinishedState, string(p.State))
	}
	if p.After != "" {
		add(runFilterBefore, p.After)
	}
	if p.ToMs != 0 {
		add(runFilterBefore, ids.FloorAt(p.ToMs))
	}
	if p.FromMs != 0 {
		add(runFilterFrom, ids.FloorAt(p.FromMs))
	}
	page := runListPage
	if len(where) > 0 {
		page += " WHERE" + strings.Join(where, " AND")
	}
	return qRunsList + " WHERE id IN (" + page + runListOrder + ")" + runListPageOrder, append(args, limit+1)
}

func pageLimit(n int) (int, error) {
	switch {
	case n == 0:
		return run.DefaultPageSize, nil
	case n < 0 || n > run.MaxPageSize:
		return 0, qlerror.New(qlerror.Invalid, "limit: %d is outside 1–%d", n, run.MaxPageSize)
	}
	return n, nil
}

// RunGet returns a run with its attempts and events, or NotFound.
func (s *Store) RunGet(ctx context.Context, id string) (run.Detail, error) {
	if err := ids.Validate("run id", id); err != nil {
		return run.Detail{}, schedule.NotARunID(id, err)
	}
	var d run.Detail
	err := s.read(ctx, "read run "+id, func(tx *txn) error {
		var err error
		d.Run, err = scanRun(tx.QueryRowContext(ctx, qRunGet, id))
		if errors.Is(err, sql.ErrNoRows) {
			return schedule.RunNotFound(id)
		}
		if err != nil {
			return err
		}
		if d.Attempts, err = attemptsOf(ctx, tx, id); err != nil {
			return err
		}
		if d.Events, err = eventsOf(ctx, tx, id); err != nil {
			return err
		}
		if d.RerunAs, err = rerunAs(ctx, tx, id); err != nil {
			return err
		}
		if d.Run.State == run.Queued {
			d.Waiting, err = archivedWaiting(ctx, tx, id)
		}
		if d.Run.State == run.Queued && d.Waiting == nil && err == nil {
			d.Waiting, err = runWaiting(ctx, tx, id)
		}
		return err
	})
	return d, err
}

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (run.Run, error) {
	var r run.Run
	var finished, dueAt sql.NullInt64
	var projectName, triggerName, taskName, rerunOf, manual, errorCode, triggerTitle sql.NullString
	var exitCode, ran sql.NullInt64
	err := sc.Scan(&r.ID, &r.ProjectID, &r.TaskID, &r.TaskRevision, &r.TriggerID, &r.TriggerRevision, &r.ExecutionRevisionID,
		&r.IdempotencyKey, &r.ScheduledForMs, &dueAt, &r.State, &r.Version, &r.LastEventSeq, &r.CreatedAtMs, &r.QueuedAtMs, &r.UpdatedAtMs, &finished,
		&projectName, &triggerName, &taskName, &rerunOf, &manual, &errorCode, &exitCode, &triggerTitle, &ran)
	r.TriggerTitle, r.RanMs = triggerTitle.String, ptr(ran)
	r.FinishedAtMs, r.DueAtMs = ptr(finished), dueAt.Int64
	r.ProjectName, r.TriggerName, r.TaskName = projectName.String, triggerName.String, taskName.String
	r.RerunOf, r.Origin, r.ErrorCode, r.ExitCode = rerunOf.String, run.OriginOf(manual.String), errorCode.String, ptr(exitCode)
	return r, err
}

func attemptsOf(ctx context.Context, tx *txn, runID string) ([]run.Attempt, error) {
	rows, err := tx.QueryContext(ctx, qAttemptsOfRun, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []run.Attempt
	for rows.Next() {
		var a run.Attempt
		var exit, started, finished sql.NullInt64
		var truncated int
		if err := rows.Scan(&a.ID, &a.RunID, &a.Number, &a.Executor, &a.State, &exit, &a.ErrorCode, &a.ErrorMessage, &a.CreatedAtMs, &started, &finished,
			&a.LogPath, &a.LogBytes, &truncated); err != nil {
			return nil, err
		}
		a.ExitCode, a.StartedAtMs, a.FinishedAtMs, a.LogTruncated = ptr(exit), ptr(started), ptr(finished), truncated == 1
		// An attempt is given its log file as it starts; only retention
		// clears the pointer afterwards.
		a.LogRemoved = started.Valid && a.LogPath == ""
		out = append(out, a)
	}
	return out, rows.Err()
}

// rerunAs are the Runs that re-run runID, newest first (run.MaxRerunAs).
func rerunAs(ctx context.Context, tx *txn, runID string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, qRunsRerunAs, runID, run.MaxRerunAs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func eventsOf(ctx context.Context, tx *txn, runID string) ([]run.Event, error) {
	rows, err := tx.QueryContext(ctx, qEventsOfRun, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []run.Event
	for rows.Next() {
		var e run.Event
		if err := rows.Scan(&e.RunID, &e.Seq, &e.Name, &e.Payload, &e.CreatedAtMs); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
