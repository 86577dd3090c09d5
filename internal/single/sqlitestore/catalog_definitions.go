package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

var (
	_ catalog.DefinitionsReader = (*Store)(nil)
	_ catalog.DefinitionsTx     = (*catalogTx)(nil)
)

// ProjectDefinitions reads the project and the current revisions of the
// first limit of its tasks and triggers by name, in one read transaction:
// a publish between the reads cannot leave a trigger without its task.
func (s *Store) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	var d catalog.Definitions
	err := s.read(ctx, "read project "+name, func(tx *txn) error {
		d = catalog.Definitions{}
		return projectDefinitions(ctx, tx, name, limit, &d)
	})
	return d, err
}

// ProjectDefinitions reads the project's definitions in the publishing
// transaction, which holds the database's write lock (BEGIN IMMEDIATE):
// no other publish can move them before this one commits.
func (c *catalogTx) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	var d catalog.Definitions
	err := projectDefinitions(ctx, c.tx, name, limit, &d)
	return d, err
}

// projectDefinitions reads the project and the current revisions of the
// first limit of its tasks and triggers by name into d, in tx.
func projectDefinitions(ctx context.Context, tx *txn, name string, limit int, d *catalog.Definitions) error {
	p := &d.Project
	err := scanProject(tx.QueryRowContext(ctx, qProjectByName, name), p)
	if errors.Is(err, sql.ErrNoRows) {
		return catalog.ProjectMissing(name)
	}
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, qTasksOfProject, p.ID, limit)
	if err != nil {
		return err
	}
	for rows.Next() {
		r, err := scanTask(rows)
		if err != nil {
			rows.Close()
			return err
		}
		d.Tasks = append(d.Tasks, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if rows, err = tx.QueryContext(ctx, qTriggersOfProject, p.ID, limit); err != nil {
		return err
	}
	for rows.Next() {
		r, err := scanTrigger(rows)
		if err != nil {
			rows.Close()
			return err
		}
		d.Triggers = append(d.Triggers, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	d.Titles, err = titlesOf(ctx, tx, p.ID)
	return err
}

// ProjectNames returns the first limit projects' names and titles in
// name order past after, of the projects named in alone when in is not
// empty.
func (s *Store) ProjectNames(ctx context.Context, after string, limit int, in []string) ([]catalog.ProjectName, error) {
	inProjects := ""
	if len(in) > 0 {
		inProjects = namesJSON(in)
	}
	rows, err := s.readPool().QueryContext(ctx, qProjectNames, limit, inProjects, after)
	if err != nil {
		return nil, mapErr(err, "list projects")
	}
	defer rows.Close()
	var out []catalog.ProjectName
	for rows.Next() {
		var n catalog.ProjectName
		if err := rows.Scan(&n.ID, &n.Name, &n.Title, &n.Status, &n.Paused); err != nil {
			return nil, mapErr(err, "list projects")
		}
		out = append(out, n)
	}
	return out, mapErr(rows.Err(), "list projects")
}

// ProjectNameOf returns the name of the project with id id, "" when none
// has it.
func (s *Store) ProjectNameOf(ctx context.Context, id string) (string, error) {
	if err := ids.Validate("project id", id); err != nil {
		return "", qlerror.Wrap(qlerror.Invalid, err, "give a project's id as `ql triggers list -o json` prints it")
	}
	var name string
	err := s.readPool().QueryRowContext(ctx, qProjectNameByID, id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return name, mapErr(err, "read project "+id)
}
