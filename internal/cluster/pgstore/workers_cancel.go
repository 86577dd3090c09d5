package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// cancelAttempts bounds re-reading the latest attempt when a retry
// created a newer one between the read and the lock.
const cancelAttempts = 3

// CancelRun cancels a Run. One that nothing runs yet (created, queued,
// retry_wait, waiting_approval, lost, or dispatching with its grant not
// started) is cancelled at once, its open attempt too: a late start of
// that grant is answered terminal. A running one records the intent
// (cancel_requested_at_ms) and, once that has committed, wakes the waiting
// pull or watch of the worker session holding the attempt
// (notifyStopAsked): the worker renews the attempt at once, hears stop and
// completes it cancelled — within moments, not at its next renewal (up to
// a third of the run lease later), which is when a worker that keeps no
// pull or watch waiting, or one older than the notice, hears it. A Run
// already ended is returned as it is, as on the single-node store, so
// cancelling twice changes nothing the second time and says what the Run
// became. actor (who asked, and from where) is recorded in the event's
// payload, the audit record of the cancel, in its transaction. The effect says whether this call finished
// the Run (run.Finishes) or closed a lost one; neither when it recorded the
// intent to stop a running one or found it ended — a cancel that raced its
// completion.
func (r *Runtime) CancelRun(ctx context.Context, runID, actor string) (_ run.Run, _ run.CancelEffect, _ error) {
	if err := ids.Validate("run id", runID); err != nil {
		return run.Run{}, run.CancelEffect{}, schedule.NotARunID(runID, err)
	}
	var out run.Run
	var c cancelled
	err := inTx(ctx, r.pool, func(tx pgx.Tx) error {
		c = cancelled{}
		f, err := lockLatestAttempt(ctx, tx, runID)
		if err != nil {
			return err
		}
		if c, err = cancelLocked(ctx, tx, f, "", actor); err != nil {
			return err
		}
		out, err = scanRun(tx.QueryRow(ctx, sqlRunGet, runID))
		return err
	})
	if err != nil {
		return run.Run{}, run.CancelEffect{}, mapErr(err, "cancelling run "+runID)
	}
	notifyStopAsked(ctx, r.pool, c.stopSessions())
	return out, c.effect, nil
}

// lockLatestAttempt locks a Run's latest attempt and the Run (in the order
// every step locks them) and checks, after the lock, that no newer attempt
// was committed meanwhile.
func lockLatestAttempt(ctx context.Context, tx querier, runID string) (leaseFacts, error) {
	for range cancelAttempts {
		var attemptID string
		err := tx.QueryRow(ctx, sqlLatestAttempt, runID).Scan(&attemptID)
		if errors.Is(err, pgx.ErrNoRows) {
			return leaseFacts{}, qlerror.New(qlerror.NotFound, "run %s does not exist; list runs with `ql runs list`", runID).Because(schedule.RefusalRunMissing)
		}
		if err != nil {
			return leaseFacts{}, err
		}
		f, err := lockLease(ctx, tx, attemptID)
		if err != nil {
			return leaseFacts{}, err
		}
		var latest string
		if err := tx.QueryRow(ctx, sqlLatestAttempt, runID).Scan(&latest); err != nil {
			return leaseFacts{}, err
		}
		if latest == attemptID {
			return f, nil
		}
	}
	return leaseFacts{}, qlerror.New(qlerror.Conflict, "run %s kept getting new attempts while it was being cancelled; retry", runID)
}

// cancelled is what cancelLocked did: the effect CancelRun reports, and
// the worker session holding the attempt whose stop it asked ("" when it
// asked none), to be woken once the transaction has committed.
type cancelled struct {
	effect run.CancelEffect
	stop   string
}

// stopSessions is the session to wake, if any, as notifyStopAsked takes it.
func (c cancelled) stopSessions() []string {
	if c.stop == "" {
		return nil
	}
	return []string{c.stop}
}

// cancelLocked cancels the Run of the locked facts f as CancelRun says and
// reports what it did; by is what cancelled it when QingLong did (an
// overlap policy; empty for a person's cancel), actor who asked:
// run.CancelPayload says which its event records.
func cancelLocked(ctx context.Context, tx querier, f leaseFacts, by run.CancelReason, actor string) (cancelled, error) {
	running := f.RunState == run.Running || (f.RunState == run.Dispatching && f.started())
	payload := run.CancelPayload(f.AttemptID, actor, by, running, f.RunState == run.Lost)
	payload["attempt"] = f.Number
	switch {
	case f.RunState.Terminal():
		return cancelled{}, nil
	case running:
		if f.CancelAtMs != nil {
			return cancelled{}, nil
		}
		_, err := advanceRun(ctx, tx, f, f.RunState, runChange{event: run.EventCancelRequested, cancel: true, payload: payload})
		var c cancelled
		if f.SessionID != nil {
			c.stop = *f.SessionID
		}
		return c, err
	}
	if !f.State.Terminal() {
		if err := endAttempt(ctx, tx, f, run.AttemptCancelled, attemptResult{errorCode: ErrorCodeCancelled}); err != nil {
			return cancelled{}, err
		}
	}
	finished, err := advanceRun(ctx, tx, f, run.Cancelled, runChange{event: run.EventCancelled, cancel: true, finished: true, payload: payload})
	return cancelled{effect: run.CancelEffect{Finished: finished, ClosedLost: err == nil && f.RunState == run.Lost}}, err
}
