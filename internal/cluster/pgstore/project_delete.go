package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var _ project.Deleter = (*Maintenance)(nil)

// errDryRun ends a dry run's transaction, which deletes nothing and
// commits nothing.
var errDryRun = errors.New("dry run")

// ProjectDelete deletes an archived project in one transaction as the
// maintenance role, the one role that deletes Runs: the project row is
// locked first (a publish or an admission of it waits, then finds it
// gone), the refusals are checked under that lock, then its Runs go a
// batch at a time with their attempts, log chunks and events (each batch
// reported), then its definitions in one statement. Logs are chunks in the
// database, so nothing is left on disk; secrets are in each worker's and
// replica's own file, which the database cannot reach.
func (m *Maintenance) ProjectDelete(ctx context.Context, r project.DeleteRequest) (project.DeleteResult, error) {
	var out project.DeleteResult
	err := runTx(ctx, m.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var refusal error
		var err error
		out, refusal, err = inspectProject(ctx, tx, r.Project)
		if err != nil {
			return err
		}
		if r.DryRun {
			out.DryRun, out.WouldRefuse = true, refusal
			return errDryRun
		}
		if refusal != nil {
			return refusal
		}
		return deleteProject(ctx, tx, r, out)
	})
	switch {
	case errors.Is(err, errDryRun):
		return out, nil
	case err != nil:
		what := "delete project " + r.Project
		if deniedRole(err) {
			what += "; it needs the maintenance role's URL ($QL_DATABASE_MAINTENANCE_URL; `ql db roles` creates the role)"
		}
		return project.DeleteResult{}, mapErr(err, what)
	}
	return out, nil
}

// inspectProject locks the project and reads what deleting it removes,
// and the refusal its deletion meets, if any.
func inspectProject(ctx context.Context, tx pgx.Tx, name string) (project.DeleteResult, error, error) {
	var out project.DeleteResult
	var archived bool
	err := tx.QueryRow(ctx, sqlProjectDeleteLock, name).Scan(&out.ProjectID, &out.ProjectName, &archived)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, nil, schedule.ProjectMissing(name)
	}
	if err != nil {
		return out, nil, err
	}
	c := &out.Deleted
	if err := tx.QueryRow(ctx, sqlProjectDeleteCounts, out.ProjectID).Scan(&c.Tasks, &c.Triggers, &c.Runs, &c.Attempts, &c.Events,
		&c.Logs, &c.LogBytes, &c.Ledger, &c.Audit, &c.Notifications); err != nil {
		return out, nil, err
	}
	if !archived {
		return out, project.NotArchived(out.ProjectName), nil
	}
	var unfinished int64
	if err := tx.QueryRow(ctx, sqlProjectDeleteUnfinished, out.ProjectID).Scan(&unfinished); err != nil {
		return out, nil, err
	}
	if unfinished > 0 {
		return out, project.UnfinishedRuns(out.ProjectName, unfinished), nil
	}
	rows, err := tx.Query(ctx, sqlProjectDeleteTokens, out.ProjectName)
	if err != nil {
		return out, nil, err
	}
	tokens, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return out, nil, err
	}
	if len(tokens) > 0 {
		return out, project.BoundTokens(out.ProjectName, tokens), nil
	}
	return out, nil, nil
}

// deleteProject deletes the locked project's Runs batch by batch, then
// its definitions, and records who deleted it with what went (the audit
// trail's records stay: the maintenance role may only append to it).
func deleteProject(ctx context.Context, tx pgx.Tx, r project.DeleteRequest, out project.DeleteResult) error {
	var soFar project.DeleteCounts
	for {
		var runs, attempts, events, chunks int64
		if err := tx.QueryRow(ctx, sqlProjectDeleteRuns, out.ProjectID, r.BatchSize()).Scan(&runs, &attempts, &events, &chunks); err != nil {
			return err
		}
		if runs == 0 {
			break
		}
		soFar.Runs += runs
		soFar.Attempts += attempts
		soFar.Events += events
		if r.OnBatch != nil {
			r.OnBatch(soFar)
		}
	}
	if soFar.Runs != out.Deleted.Runs {
		return qlerror.New(qlerror.Conflict, "deleting project %s removed %d of its %d Runs under its lock", out.ProjectName, soFar.Runs, out.Deleted.Runs)
	}
	var rows int64
	if err := tx.QueryRow(ctx, sqlProjectDeleteDefinitions, out.ProjectID).Scan(&rows); err != nil {
		return err
	}
	if err := appendAudit(ctx, tx, nil, r.Audited(out)); err != nil {
		if deniedRole(err) {
			return qlerror.New(qlerror.PermissionDenied, "the maintenance role may not record the deletion of project %s in the audit trail, so nothing was deleted: "+
				"run `ql db roles` (as a superuser) to give it INSERT on audit_log, then delete again", out.ProjectName)
		}
		return err
	}
	return nil
}
