package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.Manual = (*Store)(nil)

// manualTicket reads, under the write lock, the trigger's schedule row and
// definitions and verifies them as an admission would, apart from the
// clock: a manual Run needs an active project and a current, enabled
// revision pinning the current task revision (a paused trigger may run).
func manualTicket(ctx context.Context, tx *txn, triggerID string) (schedule.Ticket, error) {
	st, err := readStored(ctx, tx, triggerID)
	if errors.Is(err, sql.ErrNoRows) {
		return schedule.Ticket{}, schedule.TriggerMissing(triggerID)
	}
	if err != nil {
		return schedule.Ticket{}, err
	}
	return schedule.VerifyManual(triggerID, st)
}

// TriggerRunNow admits one manual Run of a trigger at the injected clock's
// time, in one write transaction: the Run its request id names if one
// exists already (before the trigger is verified: replay); else, unless r.Force, the trigger's overlap policy
// applied to its unfinished Runs (skip refuses, cancel_previous cancels
// them first); then the queued Run, its Attempt and events run.created
// (with the actor, request id and force: the audit of the request) and
// run.queued.
func (s *Store) TriggerRunNow(ctx context.Context, r schedule.RunNowRequest) (schedule.RunNowResult, error) {
	requestID, key, err := schedule.RunNowKey(r)
	if err != nil {
		return schedule.RunNowResult{}, err
	}
	var out schedule.RunNowResult
	err = s.write(ctx, "run trigger "+r.TriggerID+" now", routine, func(tx *txn) error {
		var made bool
		if out, made, err = replay(ctx, tx, key, requestID, r.Force); made || err != nil {
			return err
		}
		tk, err := manualTicket(ctx, tx, r.TriggerID)
		if err != nil {
			return err
		}
		out, err = s.admitManual(ctx, tx, tk, manualRequest{key: key, force: r.Force,
			audit: map[string]any{"manual": run.OriginRunNow, "requestId": requestID, "actor": r.Actor, "force": r.Force}})
		return err
	})
	if err != nil {
		return schedule.RunNowResult{}, err
	}
	return out, nil
}

// RunRerun admits, in one write transaction at the injected clock's time,
// a new Run repeating the finished Run r.RunID: its trigger, pinned task,
// trigger and execution revisions and scheduled time, due now, linked to
// it by rerun_of and keyed on the request id. The trigger must be runnable
// now, as for run now; its overlap policy applies.
func (s *Store) RunRerun(ctx context.Context, r schedule.RerunRequest) (schedule.RerunResult, error) {
	requestID, key, err := schedule.RerunRequestKey(r)
	if err != nil {
		return schedule.RerunResult{}, err
	}
	var out schedule.RunNowResult
	err = s.write(ctx, "re-run run "+r.RunID, routine, func(tx *txn) error {
		var src rerunSource
		err := tx.QueryRowContext(ctx, qRunRerunSource, r.RunID).Scan(&src.triggerID, &src.state, &src.scheduledForMs,
			&src.taskRevision, &src.triggerRevision, &src.executionID, &src.taskDigest, &src.triggerDigest)
		if errors.Is(err, sql.ErrNoRows) {
			// Retention may have deleted the original after this request
			// made its re-run, which it keeps while unfinished or younger:
			// asked again, the request answers the Run it made.
			var made bool
			if out, made, err = replay(ctx, tx, key, requestID, false); made || err != nil {
				return err
			}
			return schedule.RunMissing(r.RunID)
		}
		if err != nil {
			return err
		}
		if err := schedule.RerunRefusal(r.RunID, src.state); err != nil {
			return err
		}
		var made bool
		if out, made, err = replay(ctx, tx, key, requestID, false); made || err != nil {
			return err
		}
		tk, err := manualTicket(ctx, tx, src.triggerID)
		if err != nil {
			return err
		}
		tk.TaskRevision, tk.TaskContentDigest = src.taskRevision, src.taskDigest
		tk.TriggerRevision, tk.TriggerContentDigest = src.triggerRevision, src.triggerDigest
		out, err = s.admitManual(ctx, tx, tk, manualRequest{key: key, rerunOf: r.RunID, executionID: src.executionID, scheduledForMs: src.scheduledForMs,
			audit: map[string]any{"manual": run.OriginRerun, "rerunOf": r.RunID, "requestId": requestID, "actor": r.Actor}})
		return err
	})
	if err != nil {
		return schedule.RerunResult{}, err
	}
	return schedule.RerunResult(out), nil
}

// rerunSource is what a re-run repeats of its original Run.
type rerunSource struct {
	triggerID, executionID, taskDigest, triggerDigest string
	state                                             run.State
	scheduledForMs, taskRevision, triggerRevision     int64
}

// manualRequest is one Run a run-now or re-run request asks for. A re-run
// names the Run it repeats, the execution revision that Run pinned (the
// ticket's must be it) and its scheduled time; a run-now Run is scheduled
// for now.
type manualRequest struct {
	key, rerunOf, executionID string
	scheduledForMs            int64
	force                     bool
	audit                     map[string]any
}

// replay is the Run a manual request's key names already (made true),
// as schedule.ReplayOf answers it: looked up before the trigger is
// verified, so a request asked again after its answer was lost learns
// what it made even once the trigger has been disabled or its project
// archived.
func replay(ctx context.Context, tx *txn, key, requestID string, force bool) (schedule.RunNowResult, bool, error) {
	var first schedule.Replay
	switch err := tx.QueryRowContext(ctx, qManualReplay, key).Scan(&first.RunID, &first.Force); {
	case errors.Is(err, sql.ErrNoRows):
		return schedule.RunNowResult{}, false, nil
	case err != nil:
		return schedule.RunNowResult{}, false, err
	}
	out, err := schedule.ReplayOf(requestID, force, first)
	return out, true, err
}

// admitManual admits m, whose key names no Run yet (replay), on the
// verified ticket tk inside tx: unless m.force, the trigger's overlap
// policy applied to its unfinished Runs; then the queued Run.
func (s *Store) admitManual(ctx context.Context, tx *txn, tk schedule.Ticket, m manualRequest) (schedule.RunNowResult, error) {
	var out schedule.RunNowResult
	var q queuing
	var finished run.FinishCounts
	if !m.force && tk.Cron.Overlap != "" {
		unfinished, waiting, err := unfinishedRuns(ctx, tx, tk.TriggerID)
		if err != nil {
			return out, err
		}
		switch schedule.OverlapOf(tk.Cron.Overlap, len(unfinished), waiting != "") {
		case schedule.OverlapPass:
			out.Unfinished, out.Waiting = schedule.OverlapRefusedBeside(tk.Cron.Overlap, unfinished, waiting)
			out.Skipped = schedule.PassOverlap
			return out, nil
		case schedule.OverlapAdmitWaiting:
			q.waits = true
		case schedule.OverlapCancelThenAdmit:
			if q, finished, err = s.cancelPrevious(ctx, tx, unfinished, run.CancelledByManualRun); err != nil {
				return out, err
			}
			out.Cancelled = unfinished
		}
	}
	plan, err := verifiedExecution(ctx, tx, tk)
	if err != nil {
		return out, manualErr(err)
	}
	if m.executionID != "" && plan.ID != m.executionID {
		return out, qlerror.New(qlerror.Internal, "task %s revision %d: its execution revision is %s, but the Run to re-run pinned %s; the stored definitions contradict themselves",
			tk.TaskID, tk.TaskRevision, plan.ID, m.executionID)
	}
	now := s.nowMs()
	scheduledFor := now
	if m.rerunOf != "" {
		scheduledFor = m.scheduledForMs
	}
	out.RunID, out.Created, out.Finished = ids.New(), true, finished
	return out, manualErr(s.insertRun(ctx, tx, tk, admission{runID: out.RunID, attemptID: ids.New(), executionID: plan.ID, key: m.key,
		scheduledForMs: scheduledFor, dueAtMs: now, queuing: q, rerunOf: m.rerunOf, audit: m.audit}, now))
}

// TriggerBackfill admits, in one write transaction at the injected clock's
// time, the occurrences of the trigger's cron in [r.FromMs, r.ToMs] (within
// its startAt/endAt bounds, at most the request's cap) that have no Run:
// each with the idempotency key its clock admission would have had under
// the current revision. An occurrence with a Run already — that key, or a
// clock-admitted Run at the same time under an earlier revision — counts as
// Existing and is left alone. Overlap and pause do not apply: the request
// names the occurrences it wants. A dry run is rolled back at the end.
func (s *Store) TriggerBackfill(ctx context.Context, r schedule.BackfillRequest) (schedule.BackfillResult, error) {
	if err := schedule.CheckTriggerID(r.TriggerID); err != nil {
		return schedule.BackfillResult{}, err
	}
	var out schedule.BackfillResult
	err := s.write(ctx, "backfill trigger "+r.TriggerID, routine, func(tx *txn) error {
		out = schedule.BackfillResult{}
		now := s.nowMs()
		tk, err := manualTicket(ctx, tx, r.TriggerID)
		if err != nil {
			return err
		}
		occ, window, err := schedule.BackfillPlan(tk, r, now)
		if out = window; err != nil || len(occ) == 0 {
			return err
		}
		ran, err := cronScheduledIn(ctx, tx, r.TriggerID, occ[0], out.LastMs)
		if err != nil {
			return err
		}
		plan, err := verifiedExecution(ctx, tx, tk)
		if err != nil {
			return manualErr(err)
		}
		for _, at := range occ {
			key := schedule.IdempotencyKey(r.TriggerID, tk.TriggerRevision, at)
			if had, ok := ran[at]; ok {
				out.Existing++
				out.ExistingRunIDs = append(out.ExistingRunIDs, had)
				continue
			}
			runID := ids.New()
			err := s.insertRun(ctx, tx, tk, admission{runID: runID, attemptID: ids.New(), executionID: plan.ID, key: key,
				scheduledForMs: at, dueAtMs: schedule.FireAt(r.TriggerID, at, tk.Cron.JitterMs), backfilled: true,
				audit: map[string]any{"manual": run.OriginBackfill, "actor": r.Actor}}, now)
			var v *verdict
			if errors.As(err, &v) && v.reason == schedule.ReasonOccurrenceExists {
				if err := tx.QueryRowContext(ctx, qRunByKey, key).Scan(&runID); err != nil {
					return err
				}
				out.Existing++
				out.ExistingRunIDs = append(out.ExistingRunIDs, runID)
				continue
			}
			if err != nil {
				return err
			}
			out.Admitted++
			out.RunIDs = append(out.RunIDs, runID)
		}
		return schedule.EndBackfill(r)
	})
	if schedule.RolledBack(err) {
		out.RunIDs = nil
		return out, nil
	}
	if err != nil {
		return schedule.BackfillResult{}, err
	}
	return out, nil
}

// cronScheduledIn is, by scheduled time in [fromMs, toMs], a Run of the
// trigger admitted for that occurrence of its cron, under any revision.
func cronScheduledIn(ctx context.Context, tx *txn, triggerID string, fromMs, toMs int64) (map[int64]string, error) {
	rows, err := tx.QueryContext(ctx, qRunsCronScheduledIn, triggerID, fromMs, toMs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ran := map[int64]string{}
	for rows.Next() {
		var at int64
		var id string
		if err := rows.Scan(&at, &id); err != nil {
			return nil, err
		}
		ran[at] = id
	}
	return ran, rows.Err()
}

// manualErr turns an admission's verdict into the error a person reads.
func manualErr(err error) error {
	var v *verdict
	if !errors.As(err, &v) {
		return err
	}
	if v.err != nil {
		return qlerror.Wrap(qlerror.FailedPrecondition, v.err, "%s", v.reason)
	}
	return qlerror.New(qlerror.FailedPrecondition, "%s", v.reason)
}
