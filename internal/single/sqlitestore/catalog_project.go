package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

var _ catalog.Store = (*Store)(nil)

// ProjectByName returns the project or a NotFound error.
func (s *Store) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	var p project.Project
	err := s.readPool().QueryRowContext(ctx, qProjectByName, name).Scan(&p.ID, &p.Name, &p.Status, &p.Notifications)
	if errors.Is(err, sql.ErrNoRows) {
		return p, qlerror.New(qlerror.NotFound, "project %q does not exist; create it with ql apply", name)
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
	cur, err := projectByID(ctx, tx, p.ID)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := tx.ExecContext(ctx, qProjectInsert, p.ID, p.Name, p.Status, p.Notifications, now, now); err != nil {
			return "", nameTaken(err, "project", p.Name, "")
		}
		return catalog.Created, nil
	}
	if err != nil {
		return "", err
	}
	if cur == p {
		return catalog.Unchanged, nil
	}
	if _, err := tx.ExecContext(ctx, qProjectUpdate, p.Name, p.Status, p.Notifications, now, p.ID); err != nil {
		return "", nameTaken(err, "project", p.Name, "")
	}
	return catalog.Updated, nil
}

func projectByID(ctx context.Context, tx *txn, id string) (project.Project, error) {
	var p project.Project
	err := tx.QueryRowContext(ctx, qProjectByID, id).Scan(&p.ID, &p.Name, &p.Status, &p.Notifications)
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
		return qlerror.New(qlerror.FailedPrecondition, "project %q is archived; set its status to active before publishing to it", p.Name)
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
