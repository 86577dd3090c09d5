package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// CancelRun cancels a queued run at once: its claimed attempt and the run
// become cancelled, with event run.cancelled, in one transaction under the
// write lock, so a dispatcher that reads the attempt later finds it taken.
// A run that has already ended is returned as it is. A running local run
// cannot be cancelled yet (FailedPrecondition): its command ends at its
// timeout.
func (s *Store) CancelRun(ctx context.Context, runID string) (run.Run, error) {
	if err := ids.Validate("run id", runID); err != nil {
		return run.Run{}, qlerror.Wrap(qlerror.Invalid, err, "give a run id as printed by `ql runs list`")
	}
	err := s.write(ctx, "cancel run "+runID, routine, func(tx *txn) error {
		var state run.State
		var attemptID sql.NullString
		err := tx.QueryRowContext(ctx, qRunCancelRead, runID).Scan(&state, &attemptID)
		if errors.Is(err, sql.ErrNoRows) {
			return qlerror.New(qlerror.NotFound, "run %s does not exist; list runs with `ql runs list`", runID)
		}
		if err != nil {
			return err
		}
		switch {
		case state.Terminal():
			return nil
		case state != run.Queued || !attemptID.Valid:
			return qlerror.New(qlerror.FailedPrecondition,
				"run %s is %s: single-node profiles cancel only runs that have not started yet; its command ends by itself or at its timeout", runID, state)
		}
		a, err := readAttempt(ctx, tx, attemptID.String)
		if err != nil {
			return err
		}
		if err := run.CheckAttemptTransition(a.state, run.AttemptCancelled); err != nil {
			return err
		}
		now := s.nowMs()
		res, err := tx.ExecContext(ctx, qAttemptMarkFinished, string(run.AttemptCancelled), nil, "", now, 0, 0, attemptID.String, string(a.state))
		if err != nil {
			return err
		}
		if err := exactlyOne(res, qlerror.Conflict, "attempt %s changed concurrently", attemptID.String); err != nil {
			return err
		}
		return transitionRun(ctx, tx, a, run.Cancelled, run.EventCancelled, map[string]any{"attemptId": attemptID.String, "reason": "cancelled before it started"}, now)
	})
	if err != nil {
		return run.Run{}, err
	}
	d, err := s.RunGet(ctx, runID)
	return d.Run, err
}
