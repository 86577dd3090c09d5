package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
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
	if err := s.commitDecision(ctx, tx, p); err != nil {
		_ = tx.Rollback()
		var v *verdict
		if errors.As(err, &v) {
			return v.reason.Result(), v.err
		}
		return failure(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		// The reply of COMMIT is lost: the write may or may not be
		// durable. Never retried blindly — the next take re-reads the
		// row, and the bumped state_version or the idempotency key
		// resolves it from durable facts.
		return schedule.ReasonOutcomeUnknown.Result(), mapErr(err, "commit schedule decision")
	}
	res := schedule.CommitResult{Outcome: outcomeOf(p.Decision.Action)}
	if p.Decision.Action == schedule.Admit {
		res.RunID = p.RunID
	}
	return res, nil
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
		reason = schedule.ReasonInsufficientResources
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

func (s *Store) commitDecision(ctx context.Context, tx *txn, p schedule.CommitParams) error {
	tk, d := p.Ticket, p.Decision
	if err := verifyTicket(ctx, tx, tk); err != nil {
		return err
	}
	if reason := schedule.CheckDecision(p); reason != "" {
		return refuse(reason, qlerror.New(qlerror.Internal, "trigger %s: the %s decision is not the one its ticket yields", tk.TriggerID, d.Action))
	}
	now := s.nowMs()
	if d.Action != schedule.Admit {
		res, err := tx.ExecContext(ctx, qScheduleAdvanceCursor, d.NextFireAtMs, now, tk.TriggerID, tk.TriggerRevision, tk.StateVersion, nullable(tk.NextFireAtMs),
			nullable(d.NextDueOffset()))
		if err != nil {
			return err
		}
		if err := fenceHeld(res); err != nil {
			return err
		}
		return writeLedger(ctx, tx, tk, d.Passed, now)
	}
	plan, err := verifiedExecution(ctx, tx, tk)
	if err != nil {
		return err
	}
	key := schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs)
	res, err := tx.ExecContext(ctx, qRunAdmitInsert, p.RunID, tk.ProjectID, tk.TaskID, tk.TaskRevision, tk.TriggerID, tk.TriggerRevision,
		plan.ID, key, d.ScheduledForMs, d.FireAtMs, now, now, now)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		// The fence held, so no committer of this occurrence can have
		// won a race: the row contradicts the Runs (see the reason).
		return refuse(schedule.ReasonOccurrenceExists, qlerror.New(qlerror.Internal,
			"trigger %s: the occurrence at %d already has a Run (idempotency key %s) although its schedule row was not advanced past it", tk.TriggerID, d.ScheduledForMs, key))
	}
	if _, err := tx.ExecContext(ctx, qAttemptAdmitInsert, p.AttemptID, p.RunID, string(task.LocalProcess), now); err != nil {
		return err
	}
	if err := insertEvent(ctx, tx, p.RunID, 1, run.EventCreated, map[string]any{
		"triggerId": tk.TriggerID, "triggerRevision": tk.TriggerRevision, "scheduledForMs": d.ScheduledForMs, "idempotencyKey": key,
	}, now); err != nil {
		return err
	}
	if err := insertEvent(ctx, tx, p.RunID, 2, run.EventQueued, map[string]any{
		"attemptId": p.AttemptID, "executor": string(task.LocalProcess),
	}, now); err != nil {
		return err
	}
	res, err = tx.ExecContext(ctx, qScheduleAdvanceAdmitted, d.NextFireAtMs, d.ScheduledForMs, now, tk.TriggerID, tk.TriggerRevision, tk.StateVersion, nullable(tk.NextFireAtMs),
		nullable(d.NextDueOffset()))
	if err != nil {
		return err
	}
	if err := fenceHeld(res); err != nil {
		return err
	}
	return writeLedger(ctx, tx, tk, d.Passed, now)
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
