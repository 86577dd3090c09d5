package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/attemptlog"
)

// ProjectDeleter is the store's project.Deleter: the database, the
// directory of the attempts' log files and the secrets file, whose
// PROJECT/NAME secrets go with the project.
type ProjectDeleter struct {
	store   *Store
	logDir  string
	secrets process.Secrets
}

var _ project.Deleter = (*ProjectDeleter)(nil)

// ProjectDeleter returns the deletion adapter over logDir and the secrets
// file at secretsPath.
func (s *Store) ProjectDeleter(logDir, secretsPath string) *ProjectDeleter {
	return &ProjectDeleter{store: s, logDir: logDir, secrets: process.Secrets{Path: secretsPath}}
}

// logPage bounds the log files read, removed and forgotten at a time after
// the deletion's commit.
const logPage = 500

// ProjectDelete deletes the project in one BEGIN IMMEDIATE transaction,
// its Runs a batch at a time (each batch reported), then its definitions;
// the attempts' log files are named in deleted_project_logs in the same
// transaction and removed after the commit, so a file that cannot be
// removed (or a stop before its removal) is still named, and asking again
// for the project's name, gone by then, removes what is left. The secrets
// go last: a secrets file that cannot be edited is reported, never undoes
// the deletion.
func (d *ProjectDeleter) ProjectDelete(ctx context.Context, r project.DeleteRequest) (project.DeleteResult, error) {
	out := project.DeleteResult{DryRun: r.DryRun}
	if r.DryRun {
		err := d.store.read(ctx, "count project "+r.Project, func(tx *txn) error {
			var refusal error
			var err error
			out, refusal, err = d.inspect(ctx, tx, r.Project)
			if err != nil {
				return err
			}
			out.DryRun, out.WouldRefuse = true, refusal
			return nil
		})
		if err != nil {
			return out, err
		}
		out.Secrets, out.SecretsErr = d.projectSecrets(out.ProjectName)
		return out, nil
	}
	missing := false
	err := d.store.write(ctx, "delete project "+r.Project, durable, func(tx *txn) error {
		var refusal error
		var err error
		out, refusal, err = d.inspect(ctx, tx, r.Project)
		if qlerror.ReasonOf(err) == schedule.RefusalProjectUnknown {
			missing = true
			return nil
		}
		if err != nil {
			return err
		}
		if refusal != nil {
			return refusal
		}
		return d.deleteAll(ctx, tx, r, out)
	})
	if err != nil {
		return project.DeleteResult{}, err
	}
	if missing {
		return d.leftovers(ctx, r.Project)
	}
	out.Kept, err = d.removeLogs(ctx, out.ProjectName)
	if err != nil {
		return out, err
	}
	out.Secrets, out.SecretsErr = d.removeSecrets(out.ProjectName)
	return out, d.recordSecrets(ctx, r.Actor, out)
}

// inspect reads the project, what deleting it removes, and the refusal
// its deletion meets, if any.
func (d *ProjectDeleter) inspect(ctx context.Context, tx *txn, name string) (project.DeleteResult, error, error) {
	var out project.DeleteResult
	var archived bool
	err := tx.QueryRowContext(ctx, qProjectDeleteTarget, name).Scan(&out.ProjectID, &out.ProjectName, &archived)
	if errors.Is(err, sql.ErrNoRows) {
		return out, nil, schedule.ProjectMissing(name)
	}
	if err != nil {
		return out, nil, err
	}
	c := &out.Deleted
	if err := tx.QueryRowContext(ctx, qProjectDeleteCounts, out.ProjectID).Scan(&c.Tasks, &c.Triggers, &c.Runs, &c.Attempts, &c.Events,
		&c.Logs, &c.LogBytes, &c.Ledger, &c.Audit, &c.Notifications); err != nil {
		return out, nil, err
	}
	if !archived {
		return out, project.NotArchived(out.ProjectName), nil
	}
	var unfinished int64
	if err := tx.QueryRowContext(ctx, qProjectDeleteUnfinished, out.ProjectID).Scan(&unfinished); err != nil {
		return out, nil, err
	}
	if unfinished > 0 {
		return out, project.UnfinishedRuns(out.ProjectName, unfinished), nil
	}
	tokens, err := queryStrings(ctx, tx, qProjectDeleteTokens, out.ProjectName, d.store.nowMs())
	if err != nil {
		return out, nil, err
	}
	if len(tokens) > 0 {
		return out, project.BoundTokens(out.ProjectName, tokens), nil
	}
	return out, nil, nil
}

// deleteAll deletes the project's Runs batch by batch, naming their log
// files first, then its definitions, children before what they name, and
// records who deleted it with what went (the records of the audit trail
// stay: nothing deletes them).
func (d *ProjectDeleter) deleteAll(ctx context.Context, tx *txn, r project.DeleteRequest, out project.DeleteResult) error {
	var soFar project.DeleteCounts
	for {
		ids, err := queryStrings(ctx, tx, qProjectDeleteRunsPage, out.ProjectID, r.BatchSize())
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			break
		}
		list := jsonList(ids)
		if _, err := tx.ExecContext(ctx, qProjectDeleteLogsRecord, list, out.ProjectName); err != nil {
			return err
		}
		for _, step := range []struct {
			q string
			n *int64
		}{{qRetentionEventsDelete, &soFar.Events}, {qRetentionAttemptsDelete, &soFar.Attempts}, {qRetentionRunsDelete, &soFar.Runs}} {
			res, err := tx.ExecContext(ctx, step.q, list)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			*step.n += n
		}
		if r.OnBatch != nil {
			r.OnBatch(soFar)
		}
		if len(ids) < r.BatchSize() {
			break
		}
	}
	if soFar.Runs != out.Deleted.Runs {
		return qlerror.New(qlerror.Conflict, "deleting project %s removed %d of its %d Runs under the write lock", out.ProjectName, soFar.Runs, out.Deleted.Runs)
	}
	for _, q := range []string{qProjectDeleteLedger, qProjectDeleteLedgerCompacted, qProjectDeleteAudit, qProjectDeleteSchedules, qProjectDeleteNotifications,
		qProjectDeletePause, qProjectDeleteTriggerRevisions, qProjectDeleteTriggers, qProjectDeleteExecutionRevisions, qProjectDeleteTaskRevisions,
		qProjectDeleteTasks, qProjectDeleteProject} {
		if _, err := tx.ExecContext(ctx, q, out.ProjectID); err != nil {
			return err
		}
	}
	return appendAudit(ctx, tx, d.store.nowMs(), r.Audited(out))
}

// leftovers removes what a deletion of the project named name left on
// disk; with nothing left, the project is unknown.
func (d *ProjectDeleter) leftovers(ctx context.Context, name string) (project.DeleteResult, error) {
	var left []string
	err := d.store.read(ctx, "read the logs left of project "+name, func(tx *txn) error {
		var err error
		left, err = queryStrings(ctx, tx, qProjectDeleteLogsLeft, name, 1)
		return err
	})
	if err != nil {
		return project.DeleteResult{}, err
	}
	if len(left) == 0 {
		return project.DeleteResult{}, schedule.ProjectMissing(name)
	}
	out := project.DeleteResult{ProjectName: name, Leftovers: true}
	out.Kept, err = d.removeLogs(ctx, name)
	return out, err
}

// removeLogs removes the log files named for the deleted project name,
// a page at a time, forgetting each page's removed files in a short write;
// a page none of whose files could be removed ends it.
func (d *ProjectDeleter) removeLogs(ctx context.Context, name string) ([]project.KeptLog, error) {
	var kept []project.KeptLog
	skip := map[string]bool{}
	for {
		var ids []string
		err := d.store.read(ctx, "read the logs left of project "+name, func(tx *txn) error {
			var err error
			ids, err = queryStrings(ctx, tx, qProjectDeleteLogsLeft, name, logPage+len(skip))
			return err
		})
		if err != nil {
			return kept, err
		}
		var gone []string
		for _, id := range ids {
			if skip[id] {
				continue
			}
			path := attemptlog.Path(d.logDir, id)
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				skip[id] = true
				kept = append(kept, project.KeptLog{Path: path, Err: err})
				continue
			}
			gone = append(gone, id)
		}
		if len(gone) == 0 {
			return kept, nil
		}
		if err := d.store.write(ctx, "forget the removed logs of project "+name, routine, func(tx *txn) error {
			_, err := tx.ExecContext(ctx, qProjectDeleteLogsDone, jsonList(gone))
			return err
		}); err != nil {
			return kept, err
		}
	}
}

// projectSecrets are the secrets file's names in the project's namespace
// (PROJECT/NAME), sorted; none without a file.
func (d *ProjectDeleter) projectSecrets(name string) ([]string, error) {
	names, err := d.secrets.Names()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, name+"/") {
			out = append(out, n)
		}
	}
	return out, nil
}

// recordSecrets records each secret the deletion of out removed, by name
// and as the deletion's actor, as `ql secrets delete` records one: after
// the secrets file is edited (which the database's transaction cannot hold),
// so a secret the file kept is never said deleted.
func (d *ProjectDeleter) recordSecrets(ctx context.Context, actor string, out project.DeleteResult) error {
	if len(out.Secrets) == 0 {
		return nil
	}
	err := d.store.write(ctx, "record the deleted secrets of project "+out.ProjectName, durable, func(tx *txn) error {
		at := d.store.nowMs()
		for _, name := range out.Secrets {
			if err := appendAudit(ctx, tx, at, audit.Secret(audit.SecretDeleted, actor, name, false)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		names := strings.Join(out.Secrets, ", ")
		return qlerror.Wrap(qlerror.Unavailable, err, "project %s is deleted with its secrets (%s) and stays so, but the audit trail could not record the secrets' deletion: "+
			"note who made it elsewhere, and fix the database before the next change", out.ProjectName, names).
			Because(audit.RefusalNotRecorded, "action", string(audit.SecretDeleted), "name", names)
	}
	return nil
}

// removeSecrets deletes the project's secrets from the secrets file and
// returns those it deleted.
func (d *ProjectDeleter) removeSecrets(name string) ([]string, error) {
	names, err := d.projectSecrets(name)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, n := range names {
		if _, err := d.secrets.Delete(n); err != nil {
			return done, err
		}
		done = append(done, n)
	}
	return done, nil
}
