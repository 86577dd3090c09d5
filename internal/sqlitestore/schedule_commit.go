package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/qinglong/qinglong/internal/run"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/task"
)

// verdict ends a commit without writing: the transaction rolls back and
// the caller reports the outcome.
type verdict struct {
	res schedule.CommitResult
	err error
}

func (v *verdict) Error() string {
	msg := string(v.res.Outcome) + " (" + v.res.Reason + ")"
	if v.err != nil {
		msg += ": " + v.err.Error()
	}
	return msg
}

func raced(reason string) error {
	return &verdict{res: schedule.CommitResult{Outcome: schedule.Raced, Reason: reason}}
}

func failed(reason string, err error) error {
	return &verdict{res: schedule.CommitResult{Outcome: schedule.Failed, Reason: reason}, err: err}
}

// ScheduleCommit writes one decision in one BEGIN IMMEDIATE transaction
// after re-verifying the ticket: any drift of definitions or schedule state
// is raced, altered content fails closed, and the final cursor update
// carries the whole fence. For Admit it writes the queued Run, the claimed
// local_process Attempt and run.created/run.queued in the same transaction.
func (s *Store) ScheduleCommit(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	if err := checkDecision(p); err != nil {
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: "decision_invalid"}, err
	}
	var res schedule.CommitResult
	var resErr error
	if err := s.withWriter(ctx, routine, func() error {
		res, resErr = s.commitOnce(ctx, p)
		return nil
	}); err != nil {
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: "begin_failed"}, mapErr(err, "commit schedule decision")
	}
	return res, resErr
}

func (s *Store) commitOnce(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: "begin_failed"}, mapErr(err, "commit schedule decision")
	}
	if err := s.commitDecision(ctx, tx, p); err != nil {
		_ = tx.Rollback()
		var v *verdict
		if errors.As(err, &v) {
			return v.res, v.err
		}
		if isUnique(err) {
			// The occurrence's idempotency key exists: someone admitted
			// it already, so this decision is stale, not broken.
			return schedule.CommitResult{Outcome: schedule.Raced, Reason: "occurrence_exists"}, nil
		}
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: "write_failed"}, mapErr(err, "commit schedule decision")
	}
	if err := tx.Commit(); err != nil {
		// The reply of COMMIT is lost: the write may or may not be
		// durable. Never retried blindly — the next take re-reads the
		// row, and the bumped state_version or the idempotency key
		// resolves it from durable facts.
		return schedule.CommitResult{Outcome: schedule.Unavailable, Reason: "outcome_unknown"}, mapErr(err, "commit schedule decision")
	}
	res := schedule.CommitResult{Outcome: outcomeOf(p.Decision.Action)}
	if p.Decision.Action == schedule.Admit {
		res.RunID = p.RunID
	}
	return res, nil
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
	now := s.nowMs()
	if d.Action != schedule.Admit {
		res, err := tx.ExecContext(ctx, qScheduleAdvanceCursor, d.NextFireAtMs, now, tk.TriggerID, tk.TriggerRevision, tk.StateVersion, nullable(tk.NextFireAtMs))
		if err != nil {
			return err
		}
		return fenceHeld(res)
	}
	plan, err := verifiedExecution(ctx, tx, tk)
	if err != nil {
		return err
	}
	key := schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs)
	if _, err := tx.ExecContext(ctx, qRunAdmitInsert, p.RunID, tk.ProjectID, tk.TaskID, tk.TaskRevision, tk.TriggerID, tk.TriggerRevision,
		plan.ID, key, d.ScheduledForMs, now, now, now); err != nil {
		return err
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
	res, err := tx.ExecContext(ctx, qScheduleAdvanceAdmitted, d.NextFireAtMs, d.ScheduledForMs, now, tk.TriggerID, tk.TriggerRevision, tk.StateVersion, nullable(tk.NextFireAtMs))
	if err != nil {
		return err
	}
	return fenceHeld(res)
}

func fenceHeld(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return raced("state_version_changed")
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
