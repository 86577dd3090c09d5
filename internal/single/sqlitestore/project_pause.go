package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ schedule.ProjectPauser = (*Store)(nil)

// ProjectPause pauses or resumes a project in one write transaction at the
// injected clock's time: each trigger it changes goes through the trigger
// pause's own statements (pauseRow: state, audit record, the pause span
// the next decision records as paused), marked as the project's at a
// pause, and the project's record is written beside them.
func (s *Store) ProjectPause(ctx context.Context, r schedule.ProjectPauseRequest) (schedule.ProjectPauseResult, error) {
	if err := r.Validate(); err != nil {
		return schedule.ProjectPauseResult{}, err
	}
	var out schedule.ProjectPauseResult
	err := s.write(ctx, "pause project "+r.Project, routine, func(tx *txn) error {
		var archived, paused int
		var note, actor sql.NullString
		var at sql.NullInt64
		err := tx.QueryRowContext(ctx, qProjectPauseRead, r.Project).Scan(&out.ProjectID, &out.ProjectName, &archived, &paused, &note, &actor, &at)
		if errors.Is(err, sql.ErrNoRows) {
			return schedule.ProjectMissing(r.Project)
		}
		if err != nil {
			return err
		}
		if archived == 1 {
			return schedule.ProjectArchived(out.ProjectName)
		}
		out.Paused, out.Note, out.Actor, out.AtMs = paused == 1, note.String, actor.String, at.Int64
		if out.Paused != r.Pause {
			if err := s.changeProjectPause(ctx, tx, r, &out); err != nil {
				return err
			}
		}
		if !out.Paused {
			return tx.QueryRowContext(ctx, qProjectPauseKept, out.ProjectID).Scan(&out.KeptPaused)
		}
		return nil
	})
	return out, err
}

// changeProjectPause pauses (or resumes) the project's triggers that its
// pause concerns and records the project's new state in out.
func (s *Store) changeProjectPause(ctx context.Context, tx *txn, r schedule.ProjectPauseRequest, out *schedule.ProjectPauseResult) error {
	q := qProjectPauseTheirs
	if r.Pause {
		q = qProjectPauseUnpaused
	}
	triggers, err := queryStrings(ctx, tx, q, out.ProjectID)
	if err != nil {
		return err
	}
	now := s.nowMs()
	for _, id := range triggers {
		if err := pauseRow(ctx, tx, schedule.PauseRequest{TriggerID: id, Pause: r.Pause, Note: r.Note, Actor: r.Actor}, now); err != nil {
			return err
		}
		if !r.Pause {
			continue
		}
		if _, err := tx.ExecContext(ctx, qSchedulePauseMark, id); err != nil {
			return err
		}
	}
	note := ""
	if r.Pause {
		note = r.Note
	}
	if _, err := tx.ExecContext(ctx, qProjectPauseWrite, out.ProjectID, boolInt(r.Pause), nullString(note), r.Actor, now); err != nil {
		return err
	}
	out.Changed, out.Paused, out.Note, out.Actor, out.AtMs, out.Triggers = true, r.Pause, note, r.Actor, now, len(triggers)
	return nil
}
