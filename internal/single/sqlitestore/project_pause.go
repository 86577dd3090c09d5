package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	_ schedule.ProjectPauser      = (*Store)(nil)
	_ schedule.ProjectPauseReader = (*Store)(nil)
)

// ProjectPauseRead reads a project's pause state (project its name or id).
func (s *Store) ProjectPauseRead(ctx context.Context, project string) (schedule.ProjectPauseState, error) {
	var out schedule.ProjectPauseState
	err := s.read(ctx, "read the pause of project "+project, func(tx *txn) error {
		var err error
		out, _, err = projectPauseOf(ctx, tx, project)
		return err
	})
	return out, err
}

// projectPauseOf reads a project's pause state and whether it is archived.
func projectPauseOf(ctx context.Context, tx *txn, project string) (schedule.ProjectPauseState, bool, error) {
	var out schedule.ProjectPauseState
	var archived, paused int
	var note, actor sql.NullString
	var at sql.NullInt64
	err := tx.QueryRowContext(ctx, qProjectPauseRead, project).Scan(&out.ProjectID, &out.ProjectName, &archived, &paused, &note, &actor, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return out, false, schedule.ProjectMissing(project)
	}
	out.Paused, out.Note, out.Actor, out.AtMs = paused == 1, note.String, actor.String, at.Int64
	return out, archived == 1, err
}

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
		state, archived, err := projectPauseOf(ctx, tx, r.Project)
		if err != nil {
			return err
		}
		if archived {
			return schedule.ProjectArchived(state.ProjectName)
		}
		out.ProjectID, out.ProjectName, out.Paused, out.Note, out.Actor, out.AtMs = state.ProjectID, state.ProjectName, state.Paused, state.Note, state.Actor, state.AtMs
		if out.Paused != r.Pause {
			if err := s.changeProjectPause(ctx, tx, r, &out); err != nil {
				return err
			}
		}
		switch {
		case !out.Paused:
			return tx.QueryRowContext(ctx, qProjectPauseKept, out.ProjectID).Scan(&out.KeptPaused)
		case out.Changed:
			return tx.QueryRowContext(ctx, qProjectPauseKept, out.ProjectID).Scan(&out.AlreadyPaused)
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
	if r.Pause {
		now = schedule.PauseStart(r.SinceMs, now)
	}
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
	return appendAudit(ctx, tx, now, r.Audited(*out))
}
