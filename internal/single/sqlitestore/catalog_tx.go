package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// querier is the read pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// Publish runs fn in one durable BEGIN IMMEDIATE transaction: SQLite has
// one writer, so nothing can interleave and nothing needs re-running.
func (s *Store) Publish(ctx context.Context, fn func(tx catalog.Tx) error) error {
	return s.write(ctx, "publish definitions", durable, func(tx *txn) error {
		return fn(&catalogTx{s: s, tx: tx, now: s.nowMs(), active: map[string]bool{}})
	})
}

// catalogTx is one publishing transaction; every row it writes carries
// now, so the objects of one file share one publish time.
type catalogTx struct {
	s      *Store
	tx     *txn
	now    int64
	active map[string]bool
}

var (
	_ catalog.Auditor = (*catalogTx)(nil)
	_ audit.Appender  = (*catalogTx)(nil)
)

// AuditAppend records e in the audit trail in the publish's transaction
// and at its time (a project archived or activated).
func (c *catalogTx) AuditAppend(ctx context.Context, e audit.Entry) error {
	return appendAudit(ctx, c.tx, c.now, e)
}

// AuditPublish appends who published what to publish_audit, in the
// publish's transaction and at its time. A summary longer than the column
// allows is cut, never refused: the audit must not fail the publish.
func (c *catalogTx) AuditPublish(ctx context.Context, actor, projectName, summary string) error {
	if len(summary) > maxAuditSummary {
		n := maxAuditSummary - len("…")
		for !utf8.RuneStart(summary[n]) {
			n--
		}
		summary = summary[:n] + "…"
	}
	_, err := c.tx.ExecContext(ctx, qPublishAuditInsert, projectName, actor, summary, c.now)
	return err
}

// maxAuditSummary is publish_audit.summary's limit.
const maxAuditSummary = 1000

func (c *catalogTx) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	var p project.Project
	err := scanProject(c.tx.QueryRowContext(ctx, qProjectByName, name), &p)
	if errors.Is(err, sql.ErrNoRows) {
		return p, catalog.ProjectMissing(name)
	}
	return p, err
}

func (c *catalogTx) ProjectSave(ctx context.Context, p project.Project) (catalog.Change, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	delete(c.active, p.ID)
	return projectSave(ctx, c.tx, p, c.now)
}

func (c *catalogTx) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	return tasksByName(ctx, c.tx, projectID, names)
}

func (c *catalogTx) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	return triggersByName(ctx, c.tx, projectID, names)
}

func (c *catalogTx) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	return triggerNamesOfTasks(ctx, c.tx, projectID, taskIDs)
}

// TriggerNamesOfTasks returns the names of the project's triggers bound to
// any of the tasks, in name order.
func (s *Store) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	out, err := triggerNamesOfTasks(ctx, s.readPool(), projectID, taskIDs)
	return out, mapErr(err, "read triggers")
}

func triggerNamesOfTasks(ctx context.Context, q querier, projectID string, taskIDs []string) ([]string, error) {
	js, err := json.Marshal(taskIDs)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, qTriggerNamesOfTasks, projectID, string(js))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// TasksByName returns the current revisions of the named tasks that exist.
func (s *Store) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	out, err := tasksByName(ctx, s.readPool(), projectID, names)
	return out, mapErr(err, "read tasks")
}

// TriggersByName returns the current revisions of the named triggers that
// exist.
func (s *Store) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	out, err := triggersByName(ctx, s.readPool(), projectID, names)
	return out, mapErr(err, "read triggers")
}

func tasksByName(ctx context.Context, q querier, projectID string, names []string) (map[string]task.Revision, error) {
	js, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, qTasksByNames, projectID, string(js))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]task.Revision, len(names))
	for rows.Next() {
		r, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out[r.Spec.Name] = r
	}
	return out, rows.Err()
}

func triggersByName(ctx context.Context, q querier, projectID string, names []string) (map[string]trigger.Revision, error) {
	js, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, qTriggersByNames, projectID, string(js))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]trigger.Revision, len(names))
	for rows.Next() {
		r, err := scanTrigger(rows)
		if err != nil {
			return nil, err
		}
		out[r.Spec.Name] = r
	}
	return out, rows.Err()
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
