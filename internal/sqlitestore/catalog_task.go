package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/catalog"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/task"
)

// TaskByName returns the current revision of the named task, its digest
// verified.
func (s *Store) TaskByName(ctx context.Context, projectID, name string) (task.Revision, error) {
	r, err := scanTask(s.readPool().QueryRowContext(ctx, qTaskByName, projectID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return r, qlerror.New(qlerror.NotFound, "task %q does not exist in project %s", name, projectID)
	}
	return r, mapErr(err, "read task "+name)
}

// scanTask reads a current task revision and verifies its digest.
func scanTask(row interface{ Scan(...any) error }) (task.Revision, error) {
	var r task.Revision
	var specJSON string
	if err := row.Scan(&r.TaskID, &r.ProjectID, &r.Revision, &specJSON, &r.ContentDigest, &r.MutationID, &r.CreatedAtMs); err != nil {
		return r, err
	}
	spec, err := decodeSpec(specJSON)
	if err != nil {
		return r, qlerror.Wrap(qlerror.Internal, err, "task %s revision %d: stored spec does not decode", r.TaskID, r.Revision)
	}
	r.Spec = spec
	return r, r.VerifyDigest()
}

// TaskPublish appends a task revision and, for an enabled one, its
// execution revision, in one transaction fenced on the expected revision.
func (s *Store) TaskPublish(ctx context.Context, p catalog.TaskPublishParams) (catalog.PublishResult, error) {
	var res catalog.PublishResult
	err := s.write(ctx, "publish task "+p.Revision.Spec.Name, durable, func(tx *txn) error {
		var err error
		res, err = (&catalogTx{s: s, tx: tx, now: s.nowMs()}).publishTask(ctx, p)
		return err
	})
	return res, err
}

// publishTask is one task revision of a publishing transaction.
func (c *catalogTx) publishTask(ctx context.Context, p catalog.TaskPublishParams) (catalog.PublishResult, error) {
	r := p.Revision
	if err := c.s.checkPlan(r, p.Execution); err != nil {
		return catalog.PublishResult{}, err
	}
	specJSON, err := encodeSpec(r.Spec)
	if err != nil {
		return catalog.PublishResult{}, qlerror.Wrap(qlerror.Internal, err, "encode task %s", r.TaskID)
	}
	tx := c.tx
	if err := activeProject(ctx, tx, r.ProjectID); err != nil {
		return catalog.PublishResult{}, err
	}
	var res catalog.PublishResult
	if replayed, err := mutationReplay(ctx, tx, qTaskRevisionByMutation, "task", r.TaskID, r.Spec.Name, r.MutationID, r.Revision, r.ContentDigest, &res); replayed || err != nil {
		return res, err
	}
	if err := advanceTaskHead(ctx, tx, r, c.now); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, qTaskRevisionInsert, r.TaskID, r.Revision, r.ProjectID, r.Spec.Name, boolInt(r.Spec.Enabled), specJSON, r.ContentDigest, r.MutationID, c.now); err != nil {
		return res, err
	}
	if p.Execution != nil {
		if err := insertExecution(ctx, tx, *p.Execution, c.now); err != nil {
			return res, err
		}
	}
	return catalog.PublishResult{Revision: r.Revision, CreatedAtMs: c.now}, nil
}

// checkPlan rejects a publish whose execution plan does not match the
// revision: an enabled revision needs a verified plan for this store's
// executor, a disabled one must have none.
func (s *Store) checkPlan(r task.Revision, plan *task.Execution) error {
	if !r.Spec.Enabled {
		if plan != nil {
			return qlerror.New(qlerror.Internal, "task %s revision %d is disabled but came with an execution plan", r.TaskID, r.Revision)
		}
		return nil
	}
	if plan == nil {
		return qlerror.New(qlerror.Internal, "task %s revision %d is enabled but came without an execution plan", r.TaskID, r.Revision)
	}
	if plan.ProjectID != r.ProjectID || plan.TaskID != r.TaskID {
		return qlerror.New(qlerror.Internal, "execution plan %s belongs to another task", plan.ID)
	}
	return plan.Verify(r.Revision, r.ContentDigest, s.Executor())
}

func advanceTaskHead(ctx context.Context, tx *txn, r task.Revision, now int64) error {
	var headProject string
	var current int64
	err := tx.QueryRowContext(ctx, qTaskHead, r.TaskID).Scan(&headProject, &current)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	expected := r.Revision - 1
	switch {
	case exists && headProject != r.ProjectID:
		return qlerror.New(qlerror.FailedPrecondition, "task %s belongs to project %s, not %s", r.TaskID, headProject, r.ProjectID)
	case exists && current != expected:
		return qlerror.New(qlerror.Conflict, "task %q is at revision %d, not the expected %d; re-read it and publish again", r.Spec.Name, current, expected)
	case !exists && expected != 0:
		return qlerror.New(qlerror.NotFound, "task %q (%s) does not exist; publish it with expected revision 0 to create it", r.Spec.Name, r.TaskID)
	case !exists:
		_, err := tx.ExecContext(ctx, qTaskInsert, r.TaskID, r.ProjectID, r.Spec.Name, now, now)
		return nameTaken(err, "task", r.Spec.Name, r.ProjectID)
	}
	res, err := tx.ExecContext(ctx, qTaskAdvance, r.Spec.Name, r.Revision, now, r.TaskID, expected)
	if err != nil {
		return nameTaken(err, "task", r.Spec.Name, r.ProjectID)
	}
	return exactlyOne(res, qlerror.Conflict, "task %q moved past revision %d during the publish; re-read it and publish again", r.Spec.Name, expected)
}

func insertExecution(ctx context.Context, tx *txn, e task.Execution, now int64) error {
	cmdJSON, err := encodeCommandJSON(e.Command)
	if err != nil {
		return qlerror.Wrap(qlerror.Internal, err, "encode execution plan %s", e.ID)
	}
	_, err = tx.ExecContext(ctx, qExecutionRevisionInsert, e.TaskID, e.TaskRevision, e.ID, e.ProjectID, e.TaskContentDigest, string(e.Executor), cmdJSON, e.Digest, now)
	return err
}

// exactlyOne turns a fenced write that touched no row into a coded error.
func exactlyOne(res sql.Result, code qlerror.Code, format string, args ...any) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return qlerror.New(code, format, args...)
	}
	return nil
}
