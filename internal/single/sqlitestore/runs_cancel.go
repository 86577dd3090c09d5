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

// CancelRun cancels a queued run at once: its claimed attempt and the run
// become cancelled, with event run.cancelled, in one transaction under the
// write lock, so a dispatcher that reads the attempt later finds it taken.
// A running run gets a cancel intent (event run.cancel_requested, once):
// the executor that runs it stops its command at its next poll and records
// it cancelled. A lost run (its attempt ended without an outcome) is
// closed cancelled. A run that has already ended is returned as it is. actor
// (who asked, and from where) is recorded in the event's payload, the
// audit record of the cancel, in its transaction. finished reports that
// this call finished the Run (run.Finishes): not when it recorded the
// intent to stop a running one, found it ended or closed a lost one.
func (s *Store) CancelRun(ctx context.Context, runID, actor string) (r run.Run, finished bool, err error) {
	if err := ids.Validate("run id", runID); err != nil {
		return run.Run{}, false, qlerror.Wrap(qlerror.Invalid, err, "give a run id as printed by `ql runs list`").Because(schedule.RefusalNotARunID)
	}
	err = s.write(ctx, "cancel run "+runID, routine, func(tx *txn) error {
		var err error
		finished, err = s.cancelInTx(ctx, tx, runID, "cancelled before it started", actor)
		return err
	})
	if err != nil {
		return run.Run{}, false, err
	}
	d, err := s.RunGet(ctx, runID)
	return d.Run, finished, err
}

// cancelInTx cancels runID inside tx as CancelRun says; why is the reason a
// run cancelled before it started records, actor who asked (empty for the
// scheduler itself). finished reports that it finished the Run.
func (s *Store) cancelInTx(ctx context.Context, tx *txn, runID, why, actor string) (finished bool, err error) {
	var state run.State
	var attemptID sql.NullString
	err = tx.QueryRowContext(ctx, qRunCancelRead, runID).Scan(&state, &attemptID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, qlerror.New(qlerror.NotFound, "run %s does not exist; list runs with `ql runs list`", runID).Because(schedule.RefusalRunMissing)
	}
	if err != nil {
		return false, err
	}
	switch {
	case state.Terminal():
		return false, nil
	case !attemptID.Valid || (state != run.Queued && state != run.Running && state != run.Lost):
		return false, qlerror.New(qlerror.FailedPrecondition,
			"run %s is %s and has no attempt to stop; try again in a moment", runID, state).Because(run.RefusalNothingToStop)
	}
	a, err := readAttempt(ctx, tx, attemptID.String)
	if err != nil {
		return false, err
	}
	if state == run.Lost {
		// Nothing runs a lost Run (its attempt already ended lost), so the
		// cancel only closes the Run, as the cluster's does.
		return transitionRun(ctx, tx, a, run.Cancelled, run.EventCancelled, withActor(map[string]any{"attemptId": attemptID.String, "reason": "cancelled after it was lost"}, actor), s.nowMs())
	}
	if state == run.Running {
		return false, s.requestCancel(ctx, tx, runID, attemptID.String, actor, a)
	}
	if err := run.CheckAttemptTransition(a.state, run.AttemptCancelled); err != nil {
		return false, err
	}
	now := s.nowMs()
	res, err := tx.ExecContext(ctx, qAttemptMarkFinished, string(run.AttemptCancelled), nil, "", now, 0, 0, attemptID.String, string(a.state), "")
	if err != nil {
		return false, err
	}
	if err := exactlyOne(res, qlerror.Conflict, "attempt %s changed concurrently", attemptID.String); err != nil {
		return false, err
	}
	return transitionRun(ctx, tx, a, run.Cancelled, run.EventCancelled, withActor(map[string]any{"attemptId": attemptID.String, "reason": why}, actor), now)
}

// requestCancel records the intent to stop a running run's command, once.
func (s *Store) requestCancel(ctx context.Context, tx *txn, runID, attemptID, actor string, a attemptRow) error {
	var asked bool
	if err := tx.QueryRowContext(ctx, qRunCancelRequested, runID).Scan(&asked); err != nil {
		return err
	}
	if asked {
		return nil
	}
	now := s.nowMs()
	res, err := tx.ExecContext(ctx, qRunNoteEvent, now, runID, a.runVersion)
	if err != nil {
		return err
	}
	if err := exactlyOne(res, qlerror.Conflict, "run %s changed concurrently; try again", runID); err != nil {
		return err
	}
	return insertEvent(ctx, tx, runID, a.lastSeq+1, run.EventCancelRequested, withActor(map[string]any{"attemptId": attemptID}, actor), now)
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

// withActor adds who asked for a change to its event's payload.
func withActor(payload map[string]any, actor string) map[string]any {
	if actor != "" {
		payload["actor"] = actor
	}
	return payload
}
