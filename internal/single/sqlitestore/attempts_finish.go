package sqlitestore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// finishedRun maps an attempt's terminal state to its run's state and event.
var finishedRun = map[run.AttemptState]struct {
	state run.State
	event string
}{
	run.AttemptSucceeded: {run.Succeeded, run.EventSucceeded},
	run.AttemptFailed:    {run.Failed, run.EventFailed},
	run.AttemptTimedOut:  {run.TimedOut, run.EventTimedOut},
	run.AttemptCancelled: {run.Cancelled, run.EventCancelled},
	run.AttemptLost:      {run.Lost, run.EventLost},
}

// AttemptFinish records an attempt's result: a.State (succeeded, failed,
// timed_out, cancelled, or lost when its command was stopped with the
// server), a.ExitCode, a.ErrorCode, a.ErrorMessage, a.LogBytes and
// a.LogTruncated; the run goes to retry_wait when its retry policy allows
// another attempt (settleRun), else to the matching state (terminal, or
// lost), with its event, which carries the exit code, error code and
// signal (run.EndPayload). A result for an attempt that is already
// terminal or lost is rejected, never applied. finished is the state the
// Run finished in by this call (run.Finishes), "" when it did not finish
// it (a retry follows). A result for a Run whose cancel was asked before
// the attempt's deadline passed and before its command ended is recorded
// cancelled whatever the command did: the intent wins
// (run.CancelDecidesResult); a cancel asked after the command ended, its
// result waiting for the store, had nothing to cancel and leaves the
// result (with no retry). a.FinishedAtMs, when set, is when the executor
// saw the command end: the attempt, its Run and the Run's end event are
// stamped with it (attemptRow.endedAt; the Run no earlier than its latest
// event), and a retry's backoff runs from it, however late the store took
// the result.
func (s *Store) AttemptFinish(ctx context.Context, a run.Attempt) (finished run.State, err error) {
	if _, ok := finishedRun[a.State]; !ok {
		return "", qlerror.New(qlerror.Invalid, "attempt %s: %q is not a result state", a.ID, a.State)
	}
	err = s.write(ctx, "finish attempt "+a.ID, routine, func(tx *txn) error {
		finished = ""
		cur, err := readAttempt(ctx, tx, a.ID)
		if err != nil {
			return err
		}
		cancelAtMs, deadlineAtMs, err := cancelAndDeadline(ctx, tx, a.ID)
		if err != nil {
			return err
		}
		ended, runAt := cur.endedAt(a.FinishedAtMs, s.nowMs())
		if a.State != run.AttemptCancelled && run.CancelDecidesResult(cancelAtMs, deadlineAtMs, ended) {
			// The command ended (or timed out, or was stopped with the
			// server) after a cancel was asked before its deadline but
			// before the executor's poll heard it: the intent wins, as on
			// the cluster, whose replica decides a worker's completion the
			// same way. The exit code stays: it is what the command really
			// did. A cancel asked once the deadline had passed leaves the
			// end the executor saw (timed_out): the deadline came first;
			// one asked once the command had ended leaves its result.
			a.State, a.ErrorCode = run.AttemptCancelled, run.ErrorCodeCancelled
		}
		if err := run.CheckAttemptTransition(cur.state, a.State); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, qAttemptMarkFinished, string(a.State), nullable(a.ExitCode), a.ErrorCode, ended, a.LogBytes, boolInt(a.LogTruncated), a.ID, string(cur.state), a.ErrorMessage)
		if err != nil {
			return err
		}
		if err := exactlyOne(res, qlerror.Conflict, "attempt %s changed concurrently", a.ID); err != nil {
			return err
		}
		payload := map[string]any{"attemptId": a.ID}
		run.EndPayload(payload, a)
		finished, err = settleRun(ctx, tx, a.ID, cur, a.State, payload, runAt)
		return err
	})
	if err != nil {
		return "", err
	}
	return finished, nil
}

// transitionRun applies one checked run state change under the version
// fence and appends its event. finished reports that the change finished
// the Run (run.Finishes): a lost Run closed cancelled had finished before.
func transitionRun(ctx context.Context, tx *txn, a attemptRow, to run.State, event string, payload map[string]any, now int64) (finished bool, err error) {
	if err := run.CheckTransition(a.runState, to); err != nil {
		return false, err
	}
	// A lost Run records when it was found lost as its finish, as on the
	// cluster: retention ages it from then, and a later cancel restamps it.
	var finishedAt any
	if to.Finished() {
		finishedAt = now
	}
	res, err := tx.ExecContext(ctx, qRunTransition, string(to), now, finishedAt, a.runID, a.runVersion)
	if err != nil {
		return false, err
	}
	if err := exactlyOne(res, qlerror.Conflict, "run %s changed concurrently", a.runID); err != nil {
		return false, err
	}
	if err := insertEvent(ctx, tx, a.runID, a.lastSeq+1, event, payload, now); err != nil {
		return false, err
	}
	// A lost Run is not terminal (it may be reconciled later) but it has
	// ended for the people watching it.
	if !to.Finished() {
		return false, nil
	}
	code, _ := payload["errorCode"].(string)
	signal, _ := payload["signal"].(int)
	return run.Finishes(a.runState, to), enqueueNotifications(ctx, tx, a.runID, to, code, signal, now)
}
