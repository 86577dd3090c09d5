package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

var _ catalog.Store = (*Store)(nil)

// ProjectByName returns the project or a NotFound error.
func (s *Store) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	var p project.Project
	err := scanProject(s.readPool().QueryRowContext(ctx, qProjectByName, name), &p)
	if errors.Is(err, sql.ErrNoRows) {
		return p, catalog.ProjectMissing(name)
	}
	return p, mapErr(err, "read project "+name)
}

// ProjectSave inserts the project or updates its name and status.
func (s *Store) ProjectSave(ctx context.Context, p project.Project) (catalog.Change, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	var change catalog.Change
	err := s.write(ctx, "save project "+p.Name, durable, func(tx *txn) error {
		var err error
		change, err = projectSave(ctx, tx, p, s.nowMs())
		return err
	})
	return change, err
}

func projectSave(ctx context.Context, tx *txn, p project.Project, now int64) (catalog.Change, error) {
	env, err := task.EncodeEnv(p.Env)
	if err != nil {
		return "", err
	}
	cur, err := projectByID(ctx, tx, p.ID)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := tx.ExecContext(ctx, qProjectInsert, p.ID, p.Name, p.Status, p.Notifications, now, now, p.Title, p.MaxRunning, env); err != nil {
			return "", nameTaken(err, "project", p.Name, "")
		}
		return catalog.Created, nil
	}
	if err != nil {
		return "", err
	}
	if cur.Same(p) {
		return catalog.Unchanged, nil
	}
	if _, err := tx.ExecContext(ctx, qProjectUpdate, p.Name, p.Status, p.Notifications, now, p.Title, p.MaxRunning, env, p.ID); err != nil {
		return "", nameTaken(err, "project", p.Name, "")
	}
	if cur.Status == project.Archived && p.Status == project.Active {
		if err := recordArchive(ctx, tx, p.ID, now); err != nil {
			return "", err
		}
	}
	return catalog.Updated, nil
}

// recordArchive writes to the occurrence ledger what fell due on the
// project's triggers while it was archived (schedule.PassedAtReactivation)
// and moves their cursors past it, in the reactivation's transaction: an
// archived project's rows are never taken, and without this the first
// decision after it would catch the archive up like an outage.
func recordArchive(ctx context.Context, tx *txn, projectID string, now int64) error {
	type row struct {
		s            schedule.Superseded
		id           string
		stateVersion int64
	}
	rows, err := tx.QueryContext(ctx, qScheduleReactivated, projectID)
	if err != nil {
		return err
	}
	var read []row
	for rows.Next() {
		var r row
		var paused int
		var pol policyCols
		if err := rows.Scan(&r.id, &r.s.Revision, &r.s.Cron.Expression, &r.s.Cron.Timezone, &r.s.Cron.MisfirePolicy, &r.s.CreatedAtMs,
			&pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
			&r.s.CursorMs, &paused, &r.s.PausedAtMs, &r.s.ResumedAtMs, &r.stateVersion); err != nil {
			rows.Close()
			return err
		}
		pol.into(&r.s.Cron)
		r.s.Enabled, r.s.Paused = true, paused == 1
		read = append(read, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range read {
		re, err := schedule.PassedAtReactivation(r.id, r.s, now)
		if err != nil {
			return err
		}
		if !re.Moved {
			continue
		}
		res, err := tx.ExecContext(ctx, qScheduleReactivate, re.CursorMs, now, nullable(re.DueOffsetMs), r.id, r.stateVersion)
		if err != nil {
			return err
		}
		if err := exactlyOne(res, qlerror.Conflict, "the schedule of trigger %s changed during the reactivation; apply again", r.id); err != nil {
			return err
		}
		tk := schedule.Ticket{Snapshot: schedule.Snapshot{TriggerID: r.id, TriggerRevision: r.s.Revision}}
		if err := writeLedger(ctx, tx, tk, re.Passed, now); err != nil {
			return err
		}
	}
	return nil
}

func projectByID(ctx context.Context, tx *txn, id string) (project.Project, error) {
	var p project.Project
	err := scanProject(tx.QueryRowContext(ctx, qProjectByID, id), &p)
	return p, err
}

// activeProject is the precondition of every publish, checked once per
// project and transaction.
func (c *catalogTx) activeProject(ctx context.Context, id string) error {
	if c.active[id] {
		return nil
	}
	p, err := projectByID(ctx, c.tx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return qlerror.New(qlerror.NotFound, "project %s does not exist; create the project first", id)
	}
	if err != nil {
		return err
	}
	if p.Status != project.Active {
		return qlerror.New(qlerror.FailedPrecondition, "project %q is archived; set its status to active before publishing to it", p.Name).Because(catalog.RefusalProjectArchived)
	}
	c.active[id] = true
	return nil
}

// nameTaken turns a unique violation on a name into a Conflict that says
// which name and where.
func nameTaken(err error, kind, name, projectID string) error {
	if !isUnique(err) {
		return err
	}
	if projectID == "" {
		return qlerror.Wrap(qlerror.Conflict, err, "%s name %q is already taken; choose another name", kind, name)
	}
	return qlerror.Wrap(qlerror.Conflict, err, "%s name %q is already used in project %s; choose another name", kind, name, projectID)
}

// scanProject reads a row of project_by_name.sql or project_by_id.sql
// into p, its env decoded.
func scanProject(row *sql.Row, p *project.Project) error {
	var env string
	if err := row.Scan(&p.ID, &p.Name, &p.Status, &p.Notifications, &p.Title, &p.MaxRunning, &env); err != nil {
		return err
	}
	var err error
	if p.Env, err = task.DecodeEnv(env); err != nil {
		return qlerror.Wrap(qlerror.Internal, err, "project %s: its env cannot be read", p.Name)
	}
	return nil
}
