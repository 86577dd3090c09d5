package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Publish runs fn in one SERIALIZABLE transaction. A serialization failure
// or deadlock re-runs fn from the start under publishRetry (jittered
// backoff), so a whole file is retried, never part of one. A role that may
// not publish is refused before fn runs (PublishPrivilege), even when fn
// would have found nothing to write.
func (a *Admin) Publish(ctx context.Context, fn func(tx catalog.Tx) error) error {
	err := serializable(ctx, a.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlPublishPrivilege); err != nil {
			return err
		}
		return fn(&adminTx{tx: tx, active: map[string]bool{}})
	})
	return mapErr(err, "publishing definitions")
}

// adminTx is one publishing transaction. now is sampled once, by the first
// publish, so every revision of the transaction carries the same time.
type adminTx struct {
	tx     pgx.Tx
	now    int64
	active map[string]bool
}

var _ audit.Appender = (*adminTx)(nil)

// AuditAppend records e in the audit trail in the publish's transaction
// (a project archived or activated), at the database's clock: the admin
// role may append to it.
func (t *adminTx) AuditAppend(ctx context.Context, e audit.Entry) error {
	return appendAudit(ctx, t.tx, nil, e)
}

func (t *adminTx) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	return projectByName(ctx, t.tx, name)
}

func (t *adminTx) ProjectSave(ctx context.Context, p project.Project) (catalog.Change, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	return projectSave(ctx, t.tx, p)
}

func (t *adminTx) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	return tasksByName(ctx, t.tx, projectID, names)
}

func (t *adminTx) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	return triggersByName(ctx, t.tx, projectID, names)
}

func (t *adminTx) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	return triggerNamesOfTasks(ctx, t.tx, projectID, taskIDs)
}

// publishTime checks that the project may publish and returns the
// transaction's publish time.
func (t *adminTx) publishTime(ctx context.Context, projectID string) (int64, error) {
	if t.active[projectID] {
		return t.now, nil
	}
	now, err := publishNow(ctx, t.tx, projectID)
	if err != nil {
		return 0, err
	}
	if t.now == 0 {
		t.now = now
	}
	t.active[projectID] = true
	return t.now, nil
}

// TasksByName returns the current revisions of the named tasks that exist.
func (a *Admin) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	out, err := tasksByName(ctx, a.pool, projectID, names)
	return out, mapErr(err, "reading tasks")
}

// TriggersByName returns the current revisions of the named triggers that
// exist.
func (a *Admin) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	out, err := triggersByName(ctx, a.pool, projectID, names)
	return out, mapErr(err, "reading triggers")
}

// TriggerNamesOfTasks returns the names of the project's triggers bound to
// any of the tasks, in name order.
func (a *Admin) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	out, err := triggerNamesOfTasks(ctx, a.pool, projectID, taskIDs)
	return out, mapErr(err, "reading triggers")
}

func triggerNamesOfTasks(ctx context.Context, q querier, projectID string, taskIDs []string) ([]string, error) {
	rows, err := q.Query(ctx, sqlTriggerNamesOfTasks, projectID, taskIDs)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return names, err
}

func tasksByName(ctx context.Context, q querier, projectID string, names []string) (map[string]task.Revision, error) {
	rows, err := q.Query(ctx, sqlTasksByNames, projectID, names)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]task.Revision, len(names))
	for rows.Next() {
		r, err := scanTaskRevision(rows)
		if err != nil {
			return nil, err
		}
		if err := r.VerifyDigest(); err != nil {
			return nil, err
		}
		out[r.Spec.Name] = r
	}
	return out, rows.Err()
}

func triggersByName(ctx context.Context, q querier, projectID string, names []string) (map[string]trigger.Revision, error) {
	rows, err := q.Query(ctx, sqlTriggersByNames, projectID, names)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]trigger.Revision, len(names))
	for rows.Next() {
		r, err := scanTriggerRevision(rows)
		if err != nil {
			return nil, err
		}
		if err := r.VerifyDigest(); err != nil {
			return nil, err
		}
		out[r.Spec.Name] = r
	}
	return out, rows.Err()
}

// replays returns, by object id, the revisions the (id, mutation id) pairs
// already wrote.
func replays(ctx context.Context, tx pgx.Tx, query string, ids, mutations []string) (map[string]catalog.Stored, error) {
	rows, err := tx.Query(ctx, query, ids, mutations)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]catalog.Stored{}
	for rows.Next() {
		var id string
		var s catalog.Stored
		if err := rows.Scan(&id, &s.Revision, &s.Digest, &s.CreatedAtMs); err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, rows.Err()
}

// namesTaken turns a unique violation of a batch's head insert or rename
// into a Conflict naming the key.
func namesTaken(err error, kind string, names []string) error {
	if sqlState(err) != stateUniqueViolation {
		return err
	}
	if len(names) == 1 {
		return nameTaken(err, kind, names[0])
	}
	return qlerror.Wrap(qlerror.Conflict, err, "a %s name of this publish is taken by another %s in the project; choose another name", kind, kind)
}

// advanced checks that a set-based head update moved every head it was
// given; the heads are locked, so anything else is a broken fence.
func advanced(kind string, want int, n int64) error {
	if n != int64(want) {
		return qlerror.New(qlerror.Conflict, "%d of %d %s heads moved during the publish; re-read them and retry", int64(want)-n, want, kind)
	}
	return nil
}

func itemErr(i int, err error) error {
	return &catalog.ItemError{Index: i, Err: err}
}

// unwrapItem is the error of a batch of one as a single publish reports
// it.
func unwrapItem(err error) error {
	var item *catalog.ItemError
	if errors.As(err, &item) {
		return item.Err
	}
	return err
}
