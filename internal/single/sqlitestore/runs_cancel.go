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

// CancelRun cancels a queued run, or one waiting to retry, at once: its
// claimed attempt (for a retry, the next one, which then never starts) and
// the run become cancelled, with event run.cancelled, in one transaction under the
// write lock, so a dispatcher that reads the attempt later finds it taken.
// A running run gets a cancel intent (event run.cancel_requested, once):
// the executor that runs it stops its command at its next poll and records
// it cancelled. A lost run (its attempt ended without an outcome) is
// closed cancelled. A run that has already ended is returned as it is. actor
// (who asked, and from where) is recorded in the event's payload, the
// audit record of the cancel, in its transaction. The effect says whether
// this call finished the Run (run.Finishes) or closed a lost one; neither
// when it recorded the intent to stop a running one or found it ended.
//
// The cancel is dated no earlier than the newest time the database
// recorded: a person must be able to stop a Run while the clock reads
// behind the database (a device before NTP set its clock, when every
// other write is held), and a time that never precedes what the database
// holds neither puts the Run's events out of order nor moves that newest
// time, so the hold lasts as it would have.
func (s *Store) CancelRun(ctx context.Context, runID, actor string) (r run.Run, eff run.CancelEffect, err error) {
	if err := ids.Validate("run id", runID); err != nil {
		return run.Run{}, run.CancelEffect{}, schedule.NotARunID(runID, err)
	}
	err = s.write(ctx, "cancel run "+runID, routine, func(tx *txn) error {
		var newest int64
		if err := tx.QueryRowContext(ctx, qClockNewestRecorded).Scan(&newest); err != nil {
			return err
		}
		var err error
		eff, err = s.cancelInTx(ctx, tx, runID, "", actor, max(s.nowMs(), newest))
		return err
	})
	if err != nil {
		return run.Run{}, run.CancelEffect{}, err
	}
	d, err := s.RunGet(ctx, runID)
	return d.Run, eff, err
}

// cancelInTx cancels runID inside tx as CancelRun says and reports what it
// did; by is what cancelled it when QingLong did (an overlap policy; empty
// for a person's cancel), actor who asked (empty for QingLong itself):
// run.CancelPayload says which its event records. now dates it.
func (s *Store) cancelInTx(ctx context.Context, tx *txn, runID string, by run.CancelReason, actor string, now int64) (run.CancelEffect, error) {
	var state run.State
	var attemptID sql.NullString
	err := tx.QueryRowContext(ctx, qRunCancelRead, runID).Scan(&state, &attemptID)
	if errors.Is(err, sql.ErrNoRows) {
		return run.CancelEffect{}, qlerror.New(qlerror.NotFound, "run %s does not exist; list runs with `ql runs list`", runID).Because(schedule.RefusalRunMissing)
	}
	if err != nil {
		return run.CancelEffect{}, err
	}
	switch {
	case state.Terminal():
		return run.CancelEffect{}, nil
	case !attemptID.Valid || (state != run.Queued && state != run.RetryWait && state != run.Running && state != run.Lost):
		return run.CancelEffect{}, qlerror.New(qlerror.FailedPrecondition,
			"run %s is %s and has no attempt to stop; try again in a moment", runID, state).Because(run.RefusalNothingToStop)
	}
	a, err := readAttempt(ctx, tx, attemptID.String)
	if err != nil {
		return run.CancelEffect{}, err
	}
	// Never before the Run's own latest event, which a clock read ahead
	// since taken as right may have dated later than the database's
	// newest time: the Run's events stay in time order.
	now = max(now, a.lastEventAtMs)
	if state == run.Lost {
		// Nothing runs a lost Run (its attempt already ended lost), so the
		// cancel only closes the Run, as the cluster's does.
		_, err := transitionRun(ctx, tx, a, run.Cancelled, run.EventCancelled, run.CancelPayload(attemptID.String, actor, by, false, true), now)
		return run.CancelEffect{ClosedLost: err == nil}, err
	}
	if state == run.Running {
		return run.CancelEffect{}, s.requestCancel(ctx, tx, runID, run.CancelPayload(attemptID.String, actor, by, true, false), a, now)
	}
	if err := run.CheckAttemptTransition(a.state, run.AttemptCancelled); err != nil {
		return run.CancelEffect{}, err
	}
	res, err := tx.ExecContext(ctx, qAttemptMarkFinished, string(run.AttemptCancelled), nil, "", now, 0, 0, attemptID.String, string(a.state), "")
	if err != nil {
		return run.CancelEffect{}, err
	}
	if err := exactlyOne(res, qlerror.Conflict, "attempt %s changed concurrently", attemptID.String); err != nil {
		return run.CancelEffect{}, err
	}
	finished, err := transitionRun(ctx, tx, a, run.Cancelled, run.EventCancelled, run.CancelPayload(attemptID.String, actor, by, false, false), now)
	return run.CancelEffect{Finished: finished}, err
}

// requestCancel records the intent to stop a running run's command, once,
// with its event's payload, at now.
func (s *Store) requestCancel(ctx context.Context, tx *txn, runID string, payload map[string]any, a attemptRow, now int64) error {
	var asked bool
	if err := tx.QueryRowContext(ctx, qRunCancelRequested, runID).Scan(&asked); err != nil {
		return err
	}
	if asked {
		return nil
	}
	res, err := tx.ExecContext(ctx, qRunNoteEvent, now, runID, a.runVersion)
	if err != nil {
		return err
	}
	if err := exactlyOne(res, qlerror.Conflict, "run %s changed concurrently; try again", runID); err != nil {
		return err
	}
	return insertEvent(ctx, tx, runID, a.lastSeq+1, run.EventCancelRequested, payload, now)
}

// AttemptsCancelRequested lists owner's starting or running attempts whose
// run has a cancel intent.
func (s *Store) AttemptsCancelRequested(ctx context.Context, owner string) ([]string, error) {
	rows, err := s.readPool().QueryContext(ctx, qAttemptsCancelAsked, owner)
	if err != nil {
		return nil, mapErr(err, "list cancelled attempts")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, mapErr(err, "list cancelled attempts")
		}
		out = append(out, id)
	}
	return out, mapErr(rows.Err(), "list cancelled attempts")
}
