package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// adminPoolSize is small: publishing is rare and serialised per object.
const adminPoolSize = 4

// Admin is the catalog.Store of the admin role: it publishes projects,
// tasks and triggers and creates or resets schedule rows.
type Admin struct {
	pool *pgxpool.Pool
}

var _ catalog.Store = (*Admin)(nil)

// OpenAdmin connects as the admin role.
func OpenAdmin(ctx context.Context, url string) (*Admin, error) {
	pool, err := openPool(ctx, url, adminPoolSize, 0, adminStatementTimeout, adminIdleTimeout)
	if err != nil {
		return nil, err
	}
	return &Admin{pool: pool}, nil
}

// Close releases the pool.
func (a *Admin) Close() { a.pool.Close() }

// ProjectByName returns the named project or a NotFound error.
func (a *Admin) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	p, err := projectByName(ctx, a.pool, name)
	return p, mapErr(err, "reading project "+name)
}

func projectByName(ctx context.Context, q querier, name string) (project.Project, error) {
	var p project.Project
	var status, env string
	err := q.QueryRow(ctx, sqlProjectByName, name).Scan(&p.ID, &p.Name, &status, &p.Notifications, &p.Title, &p.MaxRunning, &env)
	if errors.Is(err, pgx.ErrNoRows) {
		return project.Project{}, catalog.ProjectMissing(name)
	}
	if err != nil {
		return project.Project{}, err
	}
	p.Status = project.Status(status)
	if p.Env, err = task.DecodeEnv(env); err != nil {
		return project.Project{}, qlerror.Wrap(qlerror.Internal, err, "project %s: its env cannot be read", name)
	}
	return p, nil
}

// ProjectSave inserts the project or updates its name and status.
func (a *Admin) ProjectSave(ctx context.Context, p project.Project) (catalog.Change, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	var change catalog.Change
	err := serializable(ctx, a.pool, func(tx pgx.Tx) error {
		var err error
		change, err = projectSave(ctx, tx, p)
		return err
	})
	if err != nil {
		return "", mapErr(err, "saving project "+p.Name)
	}
	return change, nil
}

func projectSave(ctx context.Context, tx pgx.Tx, p project.Project) (catalog.Change, error) {
	var change catalog.Change
	env, err := task.EncodeEnv(p.Env)
	if err != nil {
		return "", err
	}
	var name, status, notifications, title, curEnv string
	var maxRunning int
	err = tx.QueryRow(ctx, sqlProjectLock, p.ID).Scan(&name, &status, &notifications, &title, &maxRunning, &curEnv)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		change = catalog.Created
		_, err = tx.Exec(ctx, sqlProjectInsert, p.ID, p.Name, string(p.Status), p.Notifications, p.Title, p.MaxRunning, env)
	case err != nil:
		return "", err
	case name == p.Name && status == string(p.Status) && notifications == p.Notifications && title == p.Title && maxRunning == p.MaxRunning && curEnv == env:
		return catalog.Unchanged, nil
	default:
		change = catalog.Updated
		_, err = tx.Exec(ctx, sqlProjectUpdate, p.ID, p.Name, string(p.Status), p.Notifications, p.Title, p.MaxRunning, env)
		if err == nil && project.Status(status) == project.Archived && p.Status == project.Active {
			err = recordArchive(ctx, tx, p.ID)
		}
		if err == nil && status != string(p.Status) {
			// Archiving or reactivating flips every row's eligibility.
			err = refreshEligibility(ctx, tx, sqlEligibilityOfProject, p.ID)
		}
	}
	if sqlState(err) == stateUniqueViolation {
		return "", qlerror.New(qlerror.Conflict, "project name %q is taken by another project; choose another name", p.Name)
	}
	return change, err
}

// recordArchive writes to the occurrence ledger what fell due on the
// project's triggers while it was archived (schedule.PassedAtReactivation)
// and moves their cursors past it, in the reactivation's transaction: an
// archived project's rows are never claimed, and without this the first
// decision after it would catch the archive up like an outage.
func recordArchive(ctx context.Context, tx pgx.Tx, projectID string) error {
	now, err := publishNow(ctx, tx, projectID)
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, sqlReactivatedSchedules, projectID)
	if err != nil {
		return err
	}
	var l publishLedger
	var moved []string
	var cursors []int64
	var offsets []*int64
	for rows.Next() {
		var id, policy string
		var s schedule.Superseded
		var pol policyCols
		if err := rows.Scan(&id, &s.Revision, &s.Cron.Expression, &s.Cron.Timezone, &policy, &s.CreatedAtMs,
			&pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap, &s.CursorMs, &s.Paused, &s.PausedAtMs, &s.ResumedAtMs); err != nil {
			rows.Close()
			return err
		}
		s.Enabled, s.Cron.MisfirePolicy = true, trigger.MisfirePolicy(policy)
		pol.into(&s.Cron)
		r, err := schedule.PassedAtReactivation(id, s, now)
		if err != nil {
			rows.Close()
			return err
		}
		if r.Moved {
			moved, cursors, offsets = append(moved, id), append(cursors, r.CursorMs), append(offsets, r.DueOffsetMs)
			l.add(id, s.Revision, r.Passed)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(moved) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, sqlSchedulesReactivate, moved, cursors, offsets, now); err != nil {
		return err
	}
	return l.insert(ctx, tx)
}

// publishNow checks that the project may publish and returns the database
// time the transaction stamps its rows with.
func publishNow(ctx context.Context, tx pgx.Tx, projectID string) (int64, error) {
	var status string
	var now int64
	err := tx.QueryRow(ctx, sqlProjectStatusForPublish, projectID).Scan(&status, &now)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, qlerror.New(qlerror.NotFound, "project %s does not exist; create it first", projectID)
	}
	if err != nil {
		return 0, err
	}
	if project.Status(status) != project.Active {
		return 0, qlerror.New(qlerror.FailedPrecondition, "project %s is %s; set it active before publishing to it", projectID, status).Because(catalog.RefusalProjectArchived)
	}
	return now, nil
}
