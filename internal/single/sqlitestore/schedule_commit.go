package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"maps"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// verdict ends a commit without writing: the transaction rolls back and
// the caller reports the reason, with err when there is more to say.
type verdict struct {
	reason schedule.Reason
	err    error
}

func (v *verdict) Error() string {
	msg := string(v.reason.Outcome()) + " (" + string(v.reason) + ")"
	if v.err != nil {
		msg += ": " + v.err.Error()
	}
	return msg
}

// refuse ends a commit with reason; err, when not nil, is returned beside
// the outcome.
func refuse(reason schedule.Reason, err error) error { return &verdict{reason: reason, err: err} }

// ScheduleCommit writes one decision in one BEGIN IMMEDIATE transaction
// after re-verifying the ticket: any drift of definitions or schedule state
// is raced, altered content fails closed, and the final cursor update
// carries the whole fence. For Admit it writes the queued Run, the claimed
// local_process Attempt and run.created/run.queued in the same transaction.
func (s *Store) ScheduleCommit(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	if p.Ticket.Lease != nil {
		return schedule.ReasonInvalidParams.Result(), qlerror.New(qlerror.Internal,
			"trigger %s: a single-node store was handed a ticket with a cluster claim", p.Ticket.TriggerID)
	}
	var res schedule.CommitResult
	var resErr error
	if err := s.withWriter(ctx, routine, func() error {
		res, resErr = s.commitOnce(ctx, p)
		return nil
	}); err != nil {
		return failure(ctx, err)
	}
	return res, resErr
}

func (s *Store) commitOnce(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return failure(ctx, err)
	}
	w, finished, err := s.commitDecision(ctx, tx, p)
	if err != nil {
		_ = tx.Rollback()
		var v *verdict
		if errors.As(err, &v) {
			return v.reason.Result(), v.err
		}
		return failure(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return commitFailed(err).Result(), mapErr(err, "commit schedule decision")
	}
	res := resultOf(p, w)
	res.Finished = finished
	return res, nil
}

// wrote is what a decision wrote: its action (an admission passed over —
// by the overlap policy, or because its Run was admitted while the clock
// read later — is a skip) at the injected clock's reading atMs, the
// admitted Run's creation time, and the ledger entries passed (with that
// skip's own entry).
type wrote struct {
	action schedule.Action
	atMs   int64
	passed []schedule.Passed
}

// resultOf is the result of p's decision committed as w.
func resultOf(p schedule.CommitParams, w wrote) schedule.CommitResult {
	res := schedule.CommitResult{Outcome: outcomeOf(w.action), Passed: w.passed}
	if w.action == schedule.Admit {
		res.RunID, res.AdmittedAtMs = p.RunID, w.atMs
	}
	return res
}

// commitFailed is the reason of a COMMIT that failed. A full disk refused
// the WAL frames before the commit frame that would make them durable, so
// nothing was written and the disk is the reason. Any other failure may
// or may not have left the write durable: outcome_unknown, never retried
// blindly — the next take re-reads the row, and the bumped state_version
// or the idempotency key resolves it from durable facts.
func commitFailed(err error) schedule.Reason {
	if primaryCode(err) == sqlite3.SQLITE_FULL {
		return schedule.ReasonDiskFull
	}
	return schedule.ReasonOutcomeUnknown
}

// failure is the outcome of a begin or write error: the caller's own
// cancellation, a lock wait or a full disk each have a reason of their own,
// anything else is write_failed.
func failure(ctx context.Context, err error) (schedule.CommitResult, error) {
	reason := schedule.ReasonWriteFailed
	switch c := primaryCode(err); {
	case ctx.Err() != nil:
		return schedule.ReasonCancelled.Result(), err
	case c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED:
		reason = schedule.ReasonLockNotAvailable
	case c == sqlite3.SQLITE_FULL:
		reason = schedule.ReasonDiskFull
	}
	return reason.Result(), mapErr(err, "commit schedule decision")
}

func outcomeOf(a schedule.Action) schedule.Outcome {
	switch a {
	case schedule.Admit:
		return schedule.Admitted
	case schedule.Initialize:
		return schedule.Initialized
	}
	return schedule.Skipped
}

// commitDecision verifies and writes p's decision in tx and returns what
// it wrote: the decision's own action, or a skip when the admission was
// passed over (passAdmittedBefore, then the trigger's overlap policy), and
// when; and the Runs it finished (cancelled by cancel_previous), which
// stand once tx commits.
func (s *Store) commitDecision(ctx context.Context, tx *txn, p schedule.CommitParams) (_ wrote, finished run.FinishCounts, _ error) {
	tk, d := p.Ticket, p.Decision
	if err := verifyTicket(ctx, tx, tk); err != nil {
		return wrote{}, finished, err
	}
	if err := checkDecision(p); err != nil {
		return wrote{}, finished, err
	}
	now := s.nowMs()
	var q queuing
	if d.Action == schedule.Admit {
		var err error
		if d, err = passAdmittedBefore(ctx, tx, tk, d); err != nil {
			return wrote{}, finished, err
		}
	}
	if d.Action == schedule.Admit {
		var err error
		if d, q, finished, err = s.applyOverlap(ctx, tx, tk, d); err != nil {
			return wrote{}, finished, err
		}
	}
	if d.Action != schedule.Admit {
		res, err := tx.ExecContext(ctx, qScheduleAdvanceCursor, d.NextFireAtMs, now, tk.TriggerID, tk.TriggerRevision, tk.StateVersion, nullable(tk.NextFireAtMs),
			nullable(d.NextDueOffset()))
		if err != nil {
			return wrote{}, finished, err
		}
		if err := fenceHeld(res); err != nil {
			return wrote{}, finished, err
		}
		return wrote{action: d.Action, atMs: now, passed: d.Passed}, finished, writeLedger(ctx, tx, tk, d.Passed, now)
	}
	plan, err := verifiedExecution(ctx, tx, tk)
	if err != nil {
		return wrote{}, finished, err
	}
	key := schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs)
	if err := s.insertRun(ctx, tx, tk, admission{runID: p.RunID, attemptID: p.AttemptID, executionID: plan.ID, key: key,
		scheduledForMs: d.ScheduledForMs, dueAtMs: d.FireAtMs, queuing: q}, now); err != nil {
		return wrote{}, finished, err
	}
	res, err := tx.ExecContext(ctx, qScheduleAdvanceAdmitted, d.NextFireAtMs, d.ScheduledForMs, now, tk.TriggerID, tk.TriggerRevision, tk.StateVersion, nullable(tk.NextFireAtMs),
		nullable(d.NextDueOffset()))
	if err != nil {
		return wrote{}, finished, err
	}
	if err := fenceHeld(res); err != nil {
		return wrote{}, finished, err
	}
	return wrote{action: d.Action, atMs: now, passed: d.Passed}, finished, writeLedger(ctx, tx, tk, d.Passed, now)
}

// checkDecision refuses p's decision unless it is exactly the one its
// verified ticket yields (schedule.CheckDecision).
func checkDecision(p schedule.CommitParams) error {
	if reason := schedule.CheckDecision(p); reason != "" {
		return refuse(reason, qlerror.New(qlerror.Internal, "trigger %s: the %s decision is not the one its ticket yields", p.Ticket.TriggerID, p.Decision.Action))
	}
	return nil
}

// passAdmittedBefore is the admission d, or d passed over as
// PassClockWentBack when its occurrence already has the Run admitted while
// the clock read later than it does now (schedule.MayHaveItsRun). It runs
// before the overlap policy, so cancel_previous never cancels Runs for an
// occurrence that is then passed over, and reads the idempotency key only
// for an occurrence at or before the row's last admitted one, which only a
// cursor moved back after the clock went back reaches. Any other taken key
// still fails the admission closed (occurrenceExists).
func passAdmittedBefore(ctx context.Context, tx *txn, tk schedule.Ticket, d schedule.Decision) (schedule.Decision, error) {
	if !schedule.MayHaveItsRun(tk, d) {
		return d, nil
	}
	var id string
	switch err := tx.QueryRowContext(ctx, qRunByKey, schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs)).Scan(&id); {
	case errors.Is(err, sql.ErrNoRows):
		return d, nil
	case err != nil:
		return d, err
	}
	return d.PassedAs(schedule.PassClockWentBack), nil
}

// applyOverlap reads the trigger's unfinished Runs inside the admission's
// write transaction and applies its overlap policy to the admission d: the
// decision to write instead (d, or d passed over) and how its Run is
// queued (waits for the unfinished ones under queue_one, and under
// cancel_previous after asking them to stop, in the place of the newest),
// with the Runs cancel_previous finished.
func (s *Store) applyOverlap(ctx context.Context, tx *txn, tk schedule.Ticket, d schedule.Decision) (_ schedule.Decision, q queuing, finished run.FinishCounts, _ error) {
	if tk.Cron.Overlap == trigger.OverlapAllow {
		return d, q, finished, nil
	}
	unfinished, waiting, err := unfinishedRuns(ctx, tx, tk.TriggerID)
	if err != nil {
		return d, q, finished, err
	}
	switch schedule.OverlapOf(tk.Cron.Overlap, len(unfinished), waiting != "") {
	case schedule.OverlapPass:
		return d.OverlapPassed(), q, finished, nil
	case schedule.OverlapAdmitWaiting:
		return d, queuing{waits: true}, finished, nil
	case schedule.OverlapCancelThenAdmit:
		q, finished, err = s.cancelPrevious(ctx, tx, unfinished, run.CancelledByLaterOccurrence)
		return d, q, finished, err
	}
	return d, q, finished, nil
}

// queuing is how an admission under an overlap policy queues its Run.
type queuing struct {
	// waits: it waits for the trigger's unfinished Runs (queue_one,
	// cancel_previous).
	waits bool
	// replaces is the newest Run cancel_previous cancelled for it, whose
	// place in the dispatcher's queue it takes; "" for any other.
	replaces string
}

// cancelPrevious cancels a trigger's unfinished Runs (oldest first) for a
// cancel_previous admission, by saying which kind, and returns how the
// admitted Run queues: waiting for them, in the place of the newest
// (schedule.OverlapReplaced).
func (s *Store) cancelPrevious(ctx context.Context, tx *txn, unfinished []string, by run.CancelReason) (queuing, run.FinishCounts, error) {
	var finished run.FinishCounts
	for _, id := range unfinished {
		eff, err := s.cancelInTx(ctx, tx, id, by, "", s.nowMs())
		if err != nil {
			return queuing{}, run.FinishCounts{}, err
		}
		if eff.Finished {
			finished.Add(run.Cancelled)
		}
	}
	return queuing{waits: true, replaces: schedule.OverlapReplaced(unfinished)}, finished, nil
}

// unfinishedRuns are the trigger's unfinished Runs, oldest first, and the
// newest of them that has not started ("" none).
func unfinishedRuns(ctx context.Context, tx *txn, triggerID string) (ids []string, waiting string, _ error) {
	rows, err := tx.QueryContext(ctx, qRunsUnfinishedOfTrigger, triggerID)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var waits bool
		if err := rows.Scan(&id, &waits); err != nil {
			return nil, "", err
		}
		ids = append(ids, id)
		if waits {
			waiting = id
		}
	}
	return ids, waiting, rows.Err()
}

// admission is one Run to insert with its first Attempt; audit, when set,
// goes into its run.created event (who asked for a manual Run, and how).
type admission struct {
	runID, attemptID, executionID, key string
	scheduledForMs, dueAtMs            int64
	audit                              map[string]any
	// queuing: admitted under queue_one or cancel_previous.
	queuing
	// rerunOf is the finished Run a re-run repeats, "" for any other.
	rerunOf string
	// backfilled: a backfill admitted it, so its attempt is dispatched
	// after every other queued Run's and its wait is monitored apart.
	backfilled bool
}

// insertRun writes an admitted occurrence: the queued Run, its claimed
// local_process Attempt and events run.created and run.queued. A Run that
// already holds the idempotency key is ReasonOccurrenceExists.
func (s *Store) insertRun(ctx context.Context, tx *txn, tk schedule.Ticket, a admission, now int64) error {
	res, err := tx.ExecContext(ctx, qRunAdmitInsert, a.runID, tk.ProjectID, tk.TaskID, tk.TaskRevision, tk.TriggerID, tk.TriggerRevision,
		a.executionID, a.key, a.scheduledForMs, a.dueAtMs, now, now, now, boolInt(a.waits), sql.NullString{String: a.rerunOf, Valid: a.rerunOf != ""},
		boolInt(a.backfilled))
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return occurrenceExists(tk, a.scheduledForMs, a.key)
	}
	if a.backfilled {
		_, err = tx.ExecContext(ctx, qAttemptBackfillInsert, a.attemptID, a.runID, string(task.LocalProcess), now)
	} else {
		_, err = tx.ExecContext(ctx, qAttemptAdmitInsert, a.attemptID, a.runID, string(task.LocalProcess), now,
			sql.NullString{String: a.replaces, Valid: a.replaces != ""})
	}
	if err != nil {
		return err
	}
	created := map[string]any{
		"triggerId": tk.TriggerID, "triggerRevision": tk.TriggerRevision, "scheduledForMs": a.scheduledForMs, "idempotencyKey": a.key,
	}
	maps.Copy(created, a.audit)
	if err := insertEvent(ctx, tx, a.runID, 1, run.EventCreated, created, now); err != nil {
		return err
	}
	return insertEvent(ctx, tx, a.runID, 2, run.EventQueued, map[string]any{
		"attemptId": a.attemptID, "executor": string(task.LocalProcess),
	}, now)
}

// occurrenceExists refuses an admission whose occurrence already has a
// Run. The fence held, so no committer of this occurrence can have won a
// race: the row contradicts the Runs (see the reason).
func occurrenceExists(tk schedule.Ticket, scheduledForMs int64, key string) error {
	return refuse(schedule.ReasonOccurrenceExists, qlerror.New(qlerror.Internal,
		"trigger %s: the occurrence at %d already has a Run (idempotency key %s) although its schedule row was not advanced past it", tk.TriggerID, scheduledForMs, key))
}

func fenceHeld(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return refuse(schedule.ReasonStateVersionChanged, nil)
	}
	return nil
}

// insertEvent appends event seq of a run. Payloads are small JSON objects
// built from ids, numbers and codes — never environment values or output.
func insertEvent(ctx context.Context, tx *txn, runID string, seq int64, name string, payload map[string]any, now int64) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, qEventInsert, runID, seq, name, string(b), now)
	return err
}
