package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

var (
	_ catalog.DefinitionsReader = (*Admin)(nil)
	_ catalog.DefinitionsReader = (*Runtime)(nil)
	_ catalog.DefinitionsTx     = (*adminTx)(nil)
)

// ProjectDefinitions reads a project's definitions whole (an export).
func (a *Admin) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	return projectDefinitions(ctx, a.pool, name, limit)
}

// ProjectNames returns the first limit projects' names and titles in
// name order past after, of the projects named in alone when in is not
// empty.
func (a *Admin) ProjectNames(ctx context.Context, after string, limit int, in []string) ([]catalog.ProjectName, error) {
	return projectNames(ctx, a.pool, after, limit, in)
}

// ProjectNameOf returns the name of the project with id id, "" when none
// has it.
func (a *Admin) ProjectNameOf(ctx context.Context, id string) (string, error) {
	return projectNameOf(ctx, a.pool, id)
}

// ProjectDefinitions reads a project's definitions whole (an export): the
// runtime role reads the catalog too, so a replica serves exports.
func (r *Runtime) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	return projectDefinitions(ctx, r.pool, name, limit)
}

// ProjectNames returns the first limit projects' names and titles in
// name order past after, of the projects named in alone when in is not
// empty.
func (r *Runtime) ProjectNames(ctx context.Context, after string, limit int, in []string) ([]catalog.ProjectName, error) {
	return projectNames(ctx, r.pool, after, limit, in)
}

// projectDefinitions reads the project and its current revisions in one
// REPEATABLE READ snapshot: a publish between the reads cannot leave a
// trigger without its task.
func projectDefinitions(ctx context.Context, pool *pgxpool.Pool, name string, limit int) (catalog.Definitions, error) {
	var d catalog.Definitions
	err := runTx(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		d = catalog.Definitions{}
		return readDefinitions(ctx, tx, name, limit, &d)
	})
	return d, mapErr(err, "reading project "+name)
}

// ProjectDefinitions reads the project's definitions in the publishing
// SERIALIZABLE transaction: a publish that commits over what it read
// fails this one for serialization, and Publish runs it again from the
// start, this read included.
func (t *adminTx) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	var d catalog.Definitions
	err := readDefinitions(ctx, t.tx, name, limit, &d)
	return d, err
}

// readDefinitions reads the project and the current revisions of the
// first limit of its tasks and triggers into d, in tx.
func readDefinitions(ctx context.Context, tx pgx.Tx, name string, limit int, d *catalog.Definitions) error {
	var err error
	if d.Project, err = projectByName(ctx, tx, name); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, sqlTasksOfProject, d.Project.ID, limit)
	if err != nil {
		return err
	}
	for rows.Next() {
		r, err := scanTaskRevision(rows)
		if err == nil {
			err = r.VerifyDigest()
		}
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
	if rows, err = tx.Query(ctx, sqlTriggersOfProject, d.Project.ID, limit); err != nil {
		return err
	}
	for rows.Next() {
		r, err := scanTriggerRevision(rows)
		if err == nil {
			err = r.VerifyDigest()
		}
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
	d.Titles, err = titlesOf(ctx, tx, d.Project.ID)
	return err
}

// ProjectNameOf returns the name of the project with id id, "" when none
// has it.
func (r *Runtime) ProjectNameOf(ctx context.Context, id string) (string, error) {
	return projectNameOf(ctx, r.pool, id)
}

func projectNameOf(ctx context.Context, pool *pgxpool.Pool, id string) (string, error) {
	if err := ids.Validate("project id", id); err != nil {
		return "", qlerror.Wrap(qlerror.Invalid, err, "give a project's id as `ql triggers list -o json` prints it")
	}
	var name string
	err := pool.QueryRow(ctx, sqlProjectNameByID, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return name, mapErr(err, "reading project "+id)
}

func projectNames(ctx context.Context, pool *pgxpool.Pool, after string, limit int, in []string) ([]catalog.ProjectName, error) {
	var inProjects []string
	if len(in) > 0 {
		inProjects = in
	}
	rows, err := pool.Query(ctx, sqlProjectNames, limit, inProjects, after)
	if err != nil {
		return nil, mapErr(err, "listing projects")
	}
	names, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (catalog.ProjectName, error) {
		var n catalog.ProjectName
		return n, row.Scan(&n.ID, &n.Name, &n.Title, &n.Status, &n.Paused)
	})
	return names, mapErr(err, "listing projects")
}
