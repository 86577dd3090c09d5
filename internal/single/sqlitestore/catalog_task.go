package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
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
	err := s.Publish(ctx, func(tx catalog.Tx) error {
		out, err := tx.TasksPublish(ctx, []catalog.TaskPublishParams{p})
		if err != nil {
			return unwrapItem(err)
		}
		res = out[0]
		return nil
	})
	return res, err
}

// TasksPublish appends the task revisions of ps with their execution
// revisions: per item, an active project, mutation-id replay and the
// expected-revision fence, read for the whole batch at once.
func (c *catalogTx) TasksPublish(ctx context.Context, ps []catalog.TaskPublishParams) ([]catalog.PublishResult, error) {
	if err := catalog.CheckTasksDistinct(ps); err != nil {
		return nil, err
	}
	specs := make([]string, len(ps))
	ids, pairs := make([]string, len(ps)), make([][2]string, len(ps))
	for i, p := range ps {
		r := p.Revision
		if err := c.s.checkPlan(r, p.Execution); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		js, err := encodeSpec(r.Spec)
		if err != nil {
			return nil, &catalog.ItemError{Index: i, Err: qlerror.Wrap(qlerror.Internal, err, "encode task %s", r.TaskID)}
		}
		if err := c.activeProject(ctx, r.ProjectID); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		specs[i], ids[i], pairs[i] = js, r.TaskID, [2]string{r.TaskID, r.MutationID}
	}
	done, err := replays(ctx, c.tx, qTaskReplays, pairs)
	if err != nil {
		return nil, err
	}
	heads, err := c.taskHeads(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]catalog.PublishResult, len(ps))
	for i, p := range ps {
		r := p.Revision
		if s, ok := done[r.TaskID]; ok {
			if out[i], err = catalog.CheckReplay(s, "task", r.TaskID, r.Spec.Name, r.MutationID, r.Revision, r.ContentDigest); err != nil {
				return nil, &catalog.ItemError{Index: i, Err: err}
			}
			continue
		}
		if err := c.writeTask(ctx, p, heads[r.TaskID], specs[i]); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		out[i] = catalog.PublishResult{Revision: r.Revision, CreatedAtMs: c.now}
	}
	return out, nil
}

func (c *catalogTx) taskHeads(ctx context.Context, ids []string) (map[string]catalog.Head, error) {
	js, err := idsJSON(ids)
	if err != nil {
		return nil, err
	}
	rows, err := c.tx.QueryContext(ctx, qTaskHeads, js)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]catalog.Head, len(ids))
	for rows.Next() {
		var id string
		h := catalog.Head{Exists: true}
		if err := rows.Scan(&id, &h.ProjectID, &h.Current); err != nil {
			return nil, err
		}
		out[id] = h
	}
	return out, rows.Err()
}

// writeTask fences one revision on its head, moves the head and writes the
// revision and its execution plan.
func (c *catalogTx) writeTask(ctx context.Context, p catalog.TaskPublishParams, h catalog.Head, specJSON string) error {
	r, tx := p.Revision, c.tx
	expected := r.Revision - 1
	if err := catalog.CheckTaskHead(r, h); err != nil {
		return err
	}
	if !h.Exists {
		if _, err := tx.ExecContext(ctx, qTaskInsert, r.TaskID, r.ProjectID, r.Spec.Name, c.now, c.now); err != nil {
			return nameTaken(err, "task", r.Spec.Name, r.ProjectID)
		}
	} else {
		res, err := tx.ExecContext(ctx, qTaskAdvance, r.Spec.Name, r.Revision, c.now, r.TaskID, expected)
		if err != nil {
			return nameTaken(err, "task", r.Spec.Name, r.ProjectID)
		}
		if err := exactlyOne(res, qlerror.Conflict, "task %q moved past revision %d during the publish; re-read it and publish again", r.Spec.Name, expected); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, qTaskRevisionInsert, r.TaskID, r.Revision, r.ProjectID, r.Spec.Name, boolInt(r.Spec.Enabled), specJSON, r.ContentDigest, r.MutationID, c.now); err != nil {
		return err
	}
	if p.Execution != nil {
		return insertExecution(ctx, tx, *p.Execution, c.now)
	}
	return nil
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
