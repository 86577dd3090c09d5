package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
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
		return schedule.Ticket{}, qlerror.New(qlerror.NotFound, "trigger %s does not exist; `ql triggers list` shows the triggers", triggerID)
	}
	if err != nil {
		return schedule.Ticket{}, err
	}
	tk := schedule.ManualTicket(triggerID, st)
	if reason := schedule.VerifySnapshot(tk, st); reason != "" {
		return tk, schedule.ManualRefusal(triggerID, reason)
	}
	return tk, nil
}

// TriggerRunNow admits one manual Run of a trigger at the injected clock's
// time, in one write transaction: the Run its request id names if one
// exists already; else, unless r.Force, the trigger's overlap policy
// applied to its unfinished Runs (skip refuses, cancel_previous cancels
// them first); then the queued Run, its Attempt and events run.created
// (with the actor, request id and force: the audit of the request) and
// run.queued.
func (s *Store) TriggerRunNow(ctx context.Context, r schedule.RunNowRequest) (schedule.RunNowResult, error) {
	if err := ids.Validate("trigger id", r.TriggerID); err != nil {
		return schedule.RunNowResult{}, qlerror.Wrap(qlerror.Invalid, err, "give a trigger id as printed by `ql triggers list`")
	}
	requestID, err := schedule.RequestIDOf(r)
	if err != nil {
		return schedule.RunNowResult{}, err
	}
	key := schedule.ManualKey(r.TriggerID, requestID)
	var out schedule.RunNowResult
	err = s.write(ctx, "run trigger "+r.TriggerID+" now", routine, func(tx *txn) error {
		out = schedule.RunNowResult{}
		tk, err := manualTicket(ctx, tx, r.TriggerID)
		if err != nil {
			return err
		}
		switch err := tx.QueryRowContext(ctx, qRunByKey, key).Scan(&out.RunID); {
		case err == nil:
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		waits := false
		if !r.Force && tk.Cron.Overlap != "" {
			unfinished, err := unfinishedRuns(ctx, tx, r.TriggerID)
			if err != nil {
				return err
			}
			switch schedule.OverlapOf(tk.Cron.Overlap, len(unfinished)) {
			case schedule.OverlapPass:
				out.Skipped = schedule.PassOverlap
				return nil
			case schedule.OverlapAdmitWaiting:
				waits = true
			case schedule.OverlapCancelThenAdmit:
				for _, id := range unfinished {
					if err := s.cancelInTx(ctx, tx, id, "cancelled by a manual run (overlap: cancel_previous)", ""); err != nil {
						return err
					}
				}
			}
		}
		plan, err := verifiedExecution(ctx, tx, tk)
		if err != nil {
			return manualErr(err)
		}
		now := s.nowMs()
		out.RunID, out.Created = ids.New(), true
		return manualErr(s.insertRun(ctx, tx, tk, admission{runID: out.RunID, attemptID: ids.New(), executionID: plan.ID, key: key,
			scheduledForMs: now, dueAtMs: now, waits: waits, audit: map[string]any{
				"manual": "run_now", "requestId": requestID, "actor": r.Actor, "force": r.Force,
			}}, now))
	})
	if err != nil {
		return schedule.RunNowResult{}, err
	}
	return out, nil
}

// TriggerBackfill admits, in one write transaction at the injected clock's
// time, the occurrences of the trigger's cron in [r.FromMs, r.ToMs] (within
// its startAt/endAt bounds, at most the request's cap) that have no Run:
// each with the idempotency key its clock admission would have had under
// the current revision. An occurrence with a Run already — that key, or a
// clock-admitted Run at the same time under an earlier revision — counts as
// Existing and is left alone. Overlap and pause do not apply: the request
// names the occurrences it wants.
func (s *Store) TriggerBackfill(ctx context.Context, r schedule.BackfillRequest) (schedule.BackfillResult, error) {
	if err := ids.Validate("trigger id", r.TriggerID); err != nil {
		return schedule.BackfillResult{}, qlerror.Wrap(qlerror.Invalid, err, "give a trigger id as printed by `ql triggers list`")
	}
	var out schedule.BackfillResult
	err := s.write(ctx, "backfill trigger "+r.TriggerID, routine, func(tx *txn) error {
		out = schedule.BackfillResult{}
		now := s.nowMs()
		limit, err := schedule.CheckBackfill(r, now)
		if err != nil {
			return err
		}
		tk, err := manualTicket(ctx, tx, r.TriggerID)
		if err != nil {
			return err
		}
		occ, more, err := schedule.BackfillOccurrences(tk, r.FromMs, r.ToMs, limit)
		if err != nil {
			return qlerror.Wrap(qlerror.FailedPrecondition, err, "trigger %s: its cron no longer parses", r.TriggerID)
		}
		out.Occurrences, out.Truncated = len(occ), more
		if len(occ) == 0 {
			return nil
		}
		out.LastMs = occ[len(occ)-1]
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
			if ran[at] {
				out.Existing++
				continue
			}
			runID := ids.New()
			err := s.insertRun(ctx, tx, tk, admission{runID: runID, attemptID: ids.New(), executionID: plan.ID, key: key,
				scheduledForMs: at, dueAtMs: schedule.FireAt(r.TriggerID, at, tk.Cron.JitterMs),
				audit: map[string]any{"manual": "backfill", "actor": r.Actor}}, now)
			var v *verdict
			if errors.As(err, &v) && v.reason == schedule.ReasonOccurrenceExists {
				out.Existing++
				continue
			}
			if err != nil {
				return err
			}
			out.Admitted++
			out.RunIDs = append(out.RunIDs, runID)
		}
		return nil
	})
	if err != nil {
		return schedule.BackfillResult{}, err
	}
	return out, nil
}

// cronScheduledIn is the set of scheduled times in [fromMs, toMs] of the
// trigger's clock-admitted Runs, under any revision.
func cronScheduledIn(ctx context.Context, tx *txn, triggerID string, fromMs, toMs int64) (map[int64]bool, error) {
	rows, err := tx.QueryContext(ctx, qRunsCronScheduledIn, triggerID, fromMs, toMs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ran := map[int64]bool{}
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		ran[at] = true
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
