package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"maps"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

var _ schedule.Manual = (*Runtime)(nil)

// manualLock takes the trigger's schedule row lock as a write (sql/manual.sql
// says why a write) and reads every fact an admission verifies, in database
// time; the definitions are verified as an admission verifies them, apart
// from the clock and the claim (a paused trigger may run).
func manualLock(ctx context.Context, tx pgx.Tx, triggerID string) (commitFacts, schedule.Ticket, error) {
	f, err := manualFacts(ctx, tx, triggerID)
	if err != nil {
		return f, schedule.Ticket{}, err
	}
	tk, err := verifyManual(triggerID, f)
	return f, tk, err
}

// manualFacts takes the trigger's schedule row lock as a write (sql/manual.sql
// says why a write) and reads every fact an admission verifies, in database
// time, verifying none of them: a request's replay comes first.
func manualFacts(ctx context.Context, tx pgx.Tx, triggerID string) (commitFacts, error) {
	var tid pgtype.TID
	if err := tx.QueryRow(ctx, sqlManualTouch, triggerID).Scan(&tid); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return commitFacts{}, schedule.TriggerMissing(triggerID)
		}
		return commitFacts{}, err
	}
	f, err := scanCommitFacts(tx.QueryRow(ctx, sqlCommitLock, triggerID, tid), triggerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, qlerror.New(qlerror.FailedPrecondition, "trigger %s has no schedule row with its definitions", triggerID)
	}
	return f, err
}

// verifyManual verifies the locked facts f as an admission verifies them,
// apart from the clock and the claim (a paused trigger may run).
func verifyManual(triggerID string, f commitFacts) (schedule.Ticket, error) {
	tk, err := schedule.VerifyManual(triggerID, f.stored())
	if err != nil {
		return tk, err
	}
	switch {
	case f.Execution == nil:
		return tk, qlerror.New(qlerror.FailedPrecondition, "task %s revision %d has no remote_worker execution revision; republish the task", f.Task.TaskID, f.Task.Revision)
	case f.Execution.ProjectID != f.ProjectID || f.Execution.Verify(f.Task.Revision, f.Task.ContentDigest, task.RemoteWorker) != nil:
		return tk, qlerror.New(qlerror.Internal, "the execution revision of task %s revision %d fails closed (%s); republish the task", f.Task.TaskID, f.Task.Revision, schedule.ReasonExecutionCorrupt)
	}
	return tk, nil
}

// replay is the Run a manual request's key names already in the project
// (made true), as schedule.ReplayOf answers it: looked up under the
// trigger's lock before the trigger is verified, so a request asked again
// after its answer was lost learns what it made even once the trigger has
// been disabled or its project archived.
func replay(ctx context.Context, tx pgx.Tx, projectID, key, requestID string, force bool) (schedule.RunNowResult, bool, error) {
	var first schedule.Replay
	switch err := tx.QueryRow(ctx, sqlManualReplay, projectID, key).Scan(&first.RunID, &first.Force); {
	case errors.Is(err, pgx.ErrNoRows):
		return schedule.RunNowResult{}, false, nil
	case err != nil:
		return schedule.RunNowResult{}, false, err
	}
	out, err := schedule.ReplayOf(requestID, force, first)
	return out, true, err
}

// replayAnyProject is replay of a re-run request whose original Run, and
// with it the project, is gone: the key is looked for in every project.
func replayAnyProject(ctx context.Context, tx pgx.Tx, key, requestID string) (schedule.RunNowResult, bool, error) {
	var first schedule.Replay
	switch err := tx.QueryRow(ctx, sqlManualReplayAnyProject, key).Scan(&first.RunID, &first.Force); {
	case errors.Is(err, pgx.ErrNoRows):
		return schedule.RunNowResult{}, false, nil
	case err != nil:
		return schedule.RunNowResult{}, false, err
	}
	out, err := schedule.ReplayOf(requestID, false, first)
	return out, true, err
}

// manualRun is one Run a manual admission inserts.
type manualRun struct {
	runID, key              string
	scheduledForMs, dueAtMs int64
	audit                   map[string]any
	waits                   bool
	// replaces is the newest Run cancel_previous cancelled for it, whose
	// place in the dispatch order it takes; "" for any other.
	replaces string
	// rerunOf is the finished Run a re-run repeats, "" for any other.
	rerunOf string
	// backfilled: a backfill admits it, so a pull grants it after every
	// other queued Run.
	backfilled bool
}

// insertManual inserts m as an admission would (sql/manual.sql); false when
// its idempotency key is taken.
func insertManual(ctx context.Context, tx pgx.Tx, f commitFacts, tk schedule.Ticket, m manualRun) (bool, error) {
	attemptID := ids.New()
	created := map[string]any{
		"executionRevisionId": f.Execution.ID, "executionDigest": f.Execution.Digest,
		"triggerId": tk.TriggerID, "triggerRevision": tk.TriggerRevision, "triggerContentDigest": tk.TriggerContentDigest,
		"taskRevision": tk.TaskRevision, "scheduledForMs": m.scheduledForMs, "idempotencyKey": m.key,
	}
	maps.Copy(created, m.audit)
	cj, err := json.Marshal(created)
	if err != nil {
		return false, err
	}
	qj, err := json.Marshal(map[string]any{"attemptId": attemptID, "attempt": 1, "executor": string(task.RemoteWorker)})
	if err != nil {
		return false, err
	}
	args, err := manualInsertParams.args(pgx.StrictNamedArgs{
		"run_id": m.runID, "project_id": tk.ProjectID, "task_id": tk.TaskID, "task_revision": tk.TaskRevision,
		"trigger_id": tk.TriggerID, "trigger_revision": tk.TriggerRevision, "execution_revision_id": f.Execution.ID,
		"idempotency_key": m.key, "scheduled_for_ms": m.scheduledForMs, "due_at_ms": m.dueAtMs, "now_ms": f.NowMs, "waits": m.waits,
		"rerun_of": nullable(m.rerunOf), "backfilled": m.backfilled, "replaces": nullable(m.replaces),
		"attempt_id": attemptID, "executor": string(task.RemoteWorker),
		"created_event": run.EventCreated, "created_payload": string(cj), "queued_event": run.EventQueued, "queued_payload": string(qj),
	})
	if err != nil {
		return false, err
	}
	var runs, attempts, events int64
	if err := tx.QueryRow(ctx, sqlManualInsert, args...).Scan(&runs, &attempts, &events); err != nil {
		return false, err
	}
	switch {
	case runs == 0:
		return false, nil
	case runs != 1 || attempts != 1 || events != 2:
		return false, qlerror.New(qlerror.Internal, "a manual admission wrote %d runs, %d attempts and %d events, want 1, 1, 2", runs, attempts, events)
	}
	return true, nil
}

// TriggerRunNow admits one manual Run of a trigger in one transaction
// holding the trigger's schedule row lock, in database time: the Run its
// request id names if one exists already (before the trigger is verified:
// replay); else, unless r.Force, the
// trigger's overlap policy applied to its unfinished Runs (skip refuses,
// cancel_previous cancels them first, through CancelRun's steps); then the
// queued Run, Attempt 1 and events run.created (with the actor, request id
// and force: the audit of the request) and run.queued.
func (r *Runtime) TriggerRunNow(ctx context.Context, req schedule.RunNowRequest) (schedule.RunNowResult, error) {
	requestID, key, err := schedule.RunNowKey(req)
	if err != nil {
		return schedule.RunNowResult{}, err
	}
	var out schedule.RunNowResult
	var stopped []string
	err = inTx(ctx, r.pool, func(tx pgx.Tx) error {
		stopped = nil
		f, err := manualFacts(ctx, tx, req.TriggerID)
		if err != nil {
			return err
		}
		var made bool
		if out, made, err = replay(ctx, tx, f.ProjectID, key, requestID, req.Force); made || err != nil {
			return err
		}
		tk, err := verifyManual(req.TriggerID, f)
		if err != nil {
			return err
		}
		out, stopped, err = admitManual(ctx, tx, f, tk, manualRun{key: key, scheduledForMs: f.NowMs}, req.Force,
			map[string]any{"manual": run.OriginRunNow, "requestId": requestID, "actor": req.Actor, "force": req.Force},
			"run-now request "+requestID+" of trigger "+req.TriggerID)
		return err
	})
	if err != nil {
		return schedule.RunNowResult{}, mapErr(err, "running trigger "+req.TriggerID+" now")
	}
	notifyStopAsked(ctx, r.pool, stopped)
	r.wakeWorkers(ctx, out.Created)
	return out, nil
}

// wakeWorkers sends the pulls waiting on every replica back to the
// database, after the COMMIT that gave them a reason (as NotifyRunsQueued
// says why): a manual Run queued, a grant given back, a session replaced
// (its own pull then answers replaced). So the Run starts, or the worker
// hears, at once, not at a pull's next bounded wait. Whatever process made
// the change — a replica's API or ingress, or `ql` on the admin role — the
// replicas' listeners hear it. A failed notification costs only that
// wait, so the step's answer stands.
func (r *Runtime) wakeWorkers(ctx context.Context, queued bool) {
	if queued {
		_ = r.NotifyRunsQueued(ctx) // a failed notification costs only a pull's wait
	}
}

// RunRerun admits, in one transaction holding the trigger's schedule row
// lock and in database time, a new Run repeating the finished Run
// req.RunID: its trigger, pinned task, trigger and execution revisions and
// scheduled time, due now, linked to it by rerun_of and keyed on the
// request id. The trigger must be runnable now, as for run now; its
// overlap policy applies.
func (r *Runtime) RunRerun(ctx context.Context, req schedule.RerunRequest) (schedule.RerunResult, error) {
	requestID, key, err := schedule.RerunRequestKey(req)
	if err != nil {
		return schedule.RerunResult{}, err
	}
	var out schedule.RunNowResult
	var stopped []string
	err = inTx(ctx, r.pool, func(tx pgx.Tx) error {
		stopped = nil
		// A finished Run never changes again, so what is read of it before
		// the trigger's lock still holds under it.
		src, err := readRerunSource(ctx, tx, req.RunID)
		if qlerror.ReasonOf(err) == schedule.RefusalRunMissing {
			// Retention may have deleted the original after this request
			// made its re-run, which it keeps while unfinished or younger:
			// asked again, the request answers the Run it made, found by
			// its key in whichever project holds it (the original named
			// the project).
			var made bool
			if out, made, err = replayAnyProject(ctx, tx, key, requestID); made || err != nil {
				return err
			}
			return schedule.RunMissing(req.RunID)
		}
		if err != nil {
			return err
		}
		if err := schedule.RerunRefusal(req.RunID, src.state); err != nil {
			return err
		}
		if src.triggerID == "" {
			return qlerror.New(qlerror.FailedPrecondition, "run %s was not admitted for a trigger, so it cannot be re-run", req.RunID)
		}
		f, err := manualFacts(ctx, tx, src.triggerID)
		if err != nil {
			return err
		}
		var made bool
		if out, made, err = replay(ctx, tx, f.ProjectID, key, requestID, false); made || err != nil {
			return err
		}
		tk, err := verifyManual(src.triggerID, f)
		if err != nil {
			return err
		}
		tk.TaskRevision, tk.TaskContentDigest = src.taskRevision, src.taskDigest
		tk.TriggerRevision, tk.TriggerContentDigest = src.triggerRevision, src.triggerDigest
		switch {
		case src.execution == nil:
			return qlerror.New(qlerror.FailedPrecondition, "run %s pinned execution revision that no longer exists as a remote_worker plan; run the trigger now instead", req.RunID)
		case src.execution.ProjectID != tk.ProjectID || src.execution.Verify(src.taskRevision, src.taskDigest, task.RemoteWorker) != nil:
			return qlerror.New(qlerror.Internal, "the execution revision run %s pinned fails closed (%s); run the trigger now instead", req.RunID, schedule.ReasonExecutionCorrupt)
		}
		f.Execution = src.execution
		out, stopped, err = admitManual(ctx, tx, f, tk, manualRun{key: key, scheduledForMs: src.scheduledForMs, rerunOf: req.RunID}, false,
			map[string]any{"manual": run.OriginRerun, "rerunOf": req.RunID, "requestId": requestID, "actor": req.Actor},
			"re-run request "+requestID+" of run "+req.RunID)
		return err
	})
	if err != nil {
		return schedule.RerunResult{}, mapErr(err, "re-running run "+req.RunID)
	}
	notifyStopAsked(ctx, r.pool, stopped)
	r.wakeWorkers(ctx, out.Created)
	return schedule.RerunResult(out), nil
}

// rerunSource is what a re-run repeats of its original Run.
type rerunSource struct {
	triggerID, taskDigest, triggerDigest          string
	state                                         run.State
	scheduledForMs, taskRevision, triggerRevision int64
	// execution is nil when the pinned remote_worker plan is missing.
	execution *task.Execution
}

func readRerunSource(ctx context.Context, tx pgx.Tx, runID string) (rerunSource, error) {
	var src rerunSource
	var state string
	var erID, erProject, erTaskDigest, erExecutor, erDigest *string
	var erCommand []byte
	var triggerID *string
	var taskID string
	err := tx.QueryRow(ctx, sqlRerunSource, runID).Scan(&triggerID, &state, &src.scheduledForMs, &taskID, &src.taskRevision, &src.triggerRevision,
		&src.taskDigest, &src.triggerDigest, &erID, &erProject, &erTaskDigest, &erExecutor, &erCommand, &erDigest)
	if errors.Is(err, pgx.ErrNoRows) {
		return src, schedule.RunMissing(runID)
	}
	if err != nil {
		return src, err
	}
	src.triggerID, src.state = deref(triggerID), run.State(state)
	if erID != nil {
		e := &task.Execution{ID: *erID, ProjectID: *erProject, TaskID: taskID, TaskRevision: src.taskRevision,
			TaskContentDigest: *erTaskDigest, Executor: task.Executor(*erExecutor), Digest: *erDigest}
		e.Command, _ = decodeCommand(erCommand)
		src.execution = e
	}
	return src, nil
}

// admitManual admits m, whose key names no Run yet (replay), on the locked
// facts f and verified ticket tk inside tx: unless force, the
// trigger's overlap policy applied to its unfinished Runs (skip refuses,
// cancel_previous cancels them first, through CancelRun's steps); then the
// queued Run, Attempt 1 and events run.created (with audit) and
// run.queued, due at once. what names the request for the error of a key
// taken concurrently. stopped are the worker sessions holding the
// attempts those cancels asked to stop, for the caller to wake once it has
// committed.
func admitManual(ctx context.Context, tx pgx.Tx, f commitFacts, tk schedule.Ticket, m manualRun, force bool, audit map[string]any, what string) (_ schedule.RunNowResult, stopped []string, _ error) {
	var out schedule.RunNowResult
	if !force {
		switch schedule.OverlapOf(tk.Cron.Overlap, len(f.Unfinished), f.Waiting != "") {
		case schedule.OverlapPass:
			out.Unfinished, out.Waiting = schedule.OverlapRefusedBeside(tk.Cron.Overlap, f.Unfinished, f.Waiting)
			out.Skipped = schedule.PassOverlap
			return out, nil, nil
		case schedule.OverlapAdmitWaiting:
			m.waits = true
		case schedule.OverlapCancelThenAdmit:
			finished, stops, err := cancelRuns(ctx, tx, f.Unfinished, run.CancelledByManualRun)
			if err != nil {
				return out, nil, err
			}
			out.Finished, out.Cancelled, stopped = finished, f.Unfinished, stops
			m.waits, m.replaces = true, schedule.OverlapReplaced(f.Unfinished)
		}
	}
	m.runID, m.dueAtMs, m.audit = ids.New(), f.NowMs, audit
	created, err := insertManual(ctx, tx, f, tk, m)
	switch {
	case err != nil:
		return out, nil, err
	case !created:
		return out, nil, qlerror.New(qlerror.Conflict, "%s was admitted concurrently; repeat it to see its Run", what)
	}
	return schedule.RunNowResult{RunID: m.runID, Created: true, Finished: out.Finished, Cancelled: out.Cancelled}, stopped, nil
}

// TriggerBackfill admits, in one transaction holding the trigger's schedule
// row lock and in database time, the occurrences of its cron in
// [r.FromMs, r.ToMs] that the clock has already decided (within its
// startAt/endAt bounds, at most the request's cap) and that have no Run:
// each with the idempotency key its clock admission would have had under
// the current revision. An occurrence with a Run already — that key, or a
// clock-admitted Run at the same time under an earlier revision — counts
// as Existing and is left alone. Overlap and pause do not apply: the
// request names the occurrences it wants. A dry run is rolled back at the
// end.
func (r *Runtime) TriggerBackfill(ctx context.Context, req schedule.BackfillRequest) (schedule.BackfillResult, error) {
	if err := schedule.CheckTriggerID(req.TriggerID); err != nil {
		return schedule.BackfillResult{}, err
	}
	var out schedule.BackfillResult
	err := inTx(ctx, r.pool, func(tx pgx.Tx) error {
		out = schedule.BackfillResult{}
		f, tk, err := manualLock(ctx, tx, req.TriggerID)
		if err != nil {
			return err
		}
		occ, window, err := schedule.BackfillPlan(tk, req, f.NowMs)
		if out = window; err != nil || len(occ) == 0 {
			return err
		}
		ran, err := cronScheduledIn(ctx, tx, req.TriggerID, occ[0], out.LastMs)
		if err != nil {
			return err
		}
		for _, at := range occ {
			if had, ok := ran[at]; ok {
				out.Existing++
				out.ExistingRunIDs = append(out.ExistingRunIDs, had)
				continue
			}
			runID, key := ids.New(), schedule.IdempotencyKey(req.TriggerID, tk.TriggerRevision, at)
			created, err := insertManual(ctx, tx, f, tk, manualRun{runID: runID, key: key,
				scheduledForMs: at, dueAtMs: schedule.FireAt(req.TriggerID, at, tk.Cron.JitterMs), backfilled: true,
				audit: map[string]any{"manual": run.OriginBackfill, "actor": req.Actor}})
			if err != nil {
				return err
			}
			if !created {
				if err := tx.QueryRow(ctx, sqlRunByKey, tk.ProjectID, key).Scan(&runID); err != nil {
					return err
				}
				out.Existing++
				out.ExistingRunIDs = append(out.ExistingRunIDs, runID)
				continue
			}
			out.Admitted++
			out.RunIDs = append(out.RunIDs, runID)
		}
		return schedule.EndBackfill(req)
	})
	if schedule.RolledBack(err) {
		out.RunIDs = nil
		return out, nil
	}
	if err != nil {
		return schedule.BackfillResult{}, mapErr(err, "backfilling trigger "+req.TriggerID)
	}
	r.wakeWorkers(ctx, out.Admitted > 0)
	return out, nil
}

// cronScheduledIn is, by scheduled time in [fromMs, toMs], a Run of the
// trigger admitted for that occurrence of its cron, under any revision.
func cronScheduledIn(ctx context.Context, tx pgx.Tx, triggerID string, fromMs, toMs int64) (map[int64]string, error) {
	rows, err := tx.Query(ctx, sqlRunsCronScheduledIn, triggerID, fromMs, toMs)
	if err != nil {
		return nil, err
	}
	ran := map[int64]string{}
	at, id := int64(0), ""
	_, err = pgx.ForEachRow(rows, []any{&at, &id}, func() error {
		ran[at] = id
		return nil
	})
	return ran, err
}
