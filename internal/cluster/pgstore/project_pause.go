package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	_ schedule.ProjectPauser      = (*Admin)(nil)
	_ schedule.ProjectPauser      = (*Runtime)(nil)
	_ schedule.ProjectPauseReader = (*Admin)(nil)
	_ schedule.ProjectPauseReader = (*Runtime)(nil)
)

// ProjectPauseRead reads a project's pause state as the admin role (`ql
// projects show` with the admin role's URL).
func (a *Admin) ProjectPauseRead(ctx context.Context, project string) (schedule.ProjectPauseState, error) {
	return projectPauseRead(ctx, a.pool, project)
}

// ProjectPauseRead reads a project's pause state as the runtime role, for
// a replica's API and console.
func (r *Runtime) ProjectPauseRead(ctx context.Context, project string) (schedule.ProjectPauseState, error) {
	return projectPauseRead(ctx, r.pool, project)
}

func projectPauseRead(ctx context.Context, pool *pgxpool.Pool, project string) (schedule.ProjectPauseState, error) {
	out, _, err := projectPauseOf(ctx, pool, project)
	return out, mapErr(err, "reading the pause of project "+project)
}

// projectPauseOf reads a project's pause state and whether it is archived.
func projectPauseOf(ctx context.Context, q querier, project string) (schedule.ProjectPauseState, bool, error) {
	var out schedule.ProjectPauseState
	var archived bool
	var note, actor *string
	var at *int64
	err := q.QueryRow(ctx, sqlProjectPauseRead, project).Scan(&out.ProjectID, &out.ProjectName, &archived, &out.Paused, &note, &actor, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, false, schedule.ProjectMissing(project)
	}
	out.Note, out.Actor, out.AtMs = deref(note), deref(actor), derefInt(at)
	return out, archived, err
}

// ProjectPause pauses or resumes a project as the admin role (`ql projects
// pause` with the admin role's URL).
func (a *Admin) ProjectPause(ctx context.Context, r schedule.ProjectPauseRequest) (schedule.ProjectPauseResult, error) {
	return projectPause(ctx, a.pool, r)
}

// ProjectPause pauses or resumes a project as the runtime role, so that a
// replica's API and console can, with the same rights as a trigger pause
// and the project's own record beside it.
func (r *Runtime) ProjectPause(ctx context.Context, req schedule.ProjectPauseRequest) (schedule.ProjectPauseResult, error) {
	return projectPause(ctx, r.pool, req)
}

// projectPause changes every trigger the project's pause concerns through
// the trigger pause's own statements (pauseRow: state, eligibility, audit
// record, the pause span the next decision records as paused), all at one
// database time read once, and writes the project's record, in one
// SERIALIZABLE transaction.
func projectPause(ctx context.Context, pool *pgxpool.Pool, r schedule.ProjectPauseRequest) (schedule.ProjectPauseResult, error) {
	if err := r.Validate(); err != nil {
		return schedule.ProjectPauseResult{}, err
	}
	var out schedule.ProjectPauseResult
	err := serializable(ctx, pool, func(tx pgx.Tx) error {
		state, archived, err := projectPauseOf(ctx, tx, r.Project)
		if err != nil {
			return err
		}
		if archived {
			return schedule.ProjectArchived(state.ProjectName)
		}
		out = schedule.ProjectPauseResult{ProjectID: state.ProjectID, ProjectName: state.ProjectName, Paused: state.Paused, Note: state.Note, Actor: state.Actor, AtMs: state.AtMs}
		if out.Paused != r.Pause {
			if err := changeProjectPause(ctx, tx, r, &out); err != nil {
				return err
			}
		}
		switch {
		case !out.Paused:
			return tx.QueryRow(ctx, sqlProjectPauseKept, out.ProjectID).Scan(&out.KeptPaused)
		case out.Changed:
			return tx.QueryRow(ctx, sqlProjectPauseKept, out.ProjectID).Scan(&out.AlreadyPaused)
		}
		return nil
	})
	return out, mapErr(err, "pausing or resuming project "+r.Project)
}

// changeProjectPause pauses (or resumes) the project's triggers that its
// pause concerns and records the project's new state in out.
func changeProjectPause(ctx context.Context, tx pgx.Tx, r schedule.ProjectPauseRequest, out *schedule.ProjectPauseResult) error {
	var now int64
	if err := tx.QueryRow(ctx, sqlNowMs).Scan(&now); err != nil {
		return err
	}
	q := sqlProjectPauseTheirs
	if r.Pause {
		q, now = sqlProjectPauseUnpaused, schedule.PauseStart(r.SinceMs, now)
	}
	rows, err := tx.Query(ctx, q, out.ProjectID)
	if err != nil {
		return err
	}
	triggers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, id := range triggers {
		if _, err := pauseRow(ctx, tx, schedule.PauseRequest{TriggerID: id, Pause: r.Pause, Note: r.Note, Actor: r.Actor}, &now); err != nil {
			return err
		}
		if !r.Pause {
			continue
		}
		if _, err := tx.Exec(ctx, sqlSchedulePauseMark, id); err != nil {
			return err
		}
	}
	note := ""
	if r.Pause {
		note = r.Note
	}
	if _, err := tx.Exec(ctx, sqlProjectPauseWrite, out.ProjectID, r.Pause, nonEmpty(note), r.Actor, now); err != nil {
		return err
	}
	out.Changed, out.Paused, out.Note, out.Actor, out.AtMs, out.Triggers = true, r.Pause, note, r.Actor, now, len(triggers)
	return appendAudit(ctx, tx, &now, r.Audited(*out))
}
