package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// TaskByName returns the current revision of the named task, its digest
// verified.
func (a *Admin) TaskByName(ctx context.Context, projectID, name string) (task.Revision, error) {
	r, err := scanTaskRevision(a.pool.QueryRow(ctx, sqlTaskCurrentByName, projectID, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return task.Revision{}, qlerror.New(qlerror.NotFound, "task %q does not exist in project %s", name, projectID)
	}
	if err != nil {
		return task.Revision{}, mapErr(err, "reading task "+name)
	}
	return r, r.VerifyDigest()
}

func scanTaskRevision(row pgx.Row) (task.Revision, error) {
	var r task.Revision
	var labels, command []byte
	err := row.Scan(&r.TaskID, &r.ProjectID, &r.Revision, &r.Spec.Name, &r.Spec.Enabled, &labels, &command, &r.ContentDigest, &r.MutationID, &r.CreatedAtMs)
	if err != nil {
		return task.Revision{}, err
	}
	if r.Spec.Labels, err = decodeLabels(labels); err != nil {
		return task.Revision{}, qlerror.Wrap(qlerror.Internal, err, "task %s revision %d: stored labels are not valid", r.TaskID, r.Revision)
	}
	if r.Spec.Command, err = decodeCommand(command); err != nil {
		return task.Revision{}, qlerror.Wrap(qlerror.Internal, err, "task %s revision %d: stored command is not valid", r.TaskID, r.Revision)
	}
	return r, nil
}

// TaskPublish appends a task revision (expected-revision fence, mutation-id
// replay) and, for an enabled revision, its execution revision, in one
// SERIALIZABLE transaction.
func (a *Admin) TaskPublish(ctx context.Context, p catalog.TaskPublishParams) (catalog.PublishResult, error) {
	var res catalog.PublishResult
	err := a.Publish(ctx, func(tx catalog.Tx) error {
		out, err := tx.TasksPublish(ctx, []catalog.TaskPublishParams{p})
		if err != nil {
			return err
		}
		res = out[0]
		return nil
	})
	if err != nil {
		return catalog.PublishResult{}, mapErr(unwrapItem(err), "publishing task "+p.Revision.Spec.Name)
	}
	return res, nil
}

// taskWrites are the column arrays of a batch's task writes.
type taskWrites struct {
	newIDs, newProjects, newNames           []string
	advIDs, advNames                        []string
	advRevisions                            []int64
	revTasks, revProjects, revNames         []string
	revLabels, revCommands, revDigests      []string
	revMutations                            []string
	revRevisions                            []int64
	revEnabled                              []bool
	exTasks, exExecutors, exIDs, exProjects []string
	exTaskDigests, exCommands, exDigests    []string
	exRevisions                             []int64
	byProject                               map[string][]string
}

// TasksPublish appends the task revisions of ps with their execution
// revisions: per item the same fences as a single publish (active project,
// mutation-id replay, expected revision), checked and written in a few
// set-based statements.
func (t *adminTx) TasksPublish(ctx context.Context, ps []catalog.TaskPublishParams) ([]catalog.PublishResult, error) {
	if err := catalog.CheckTasksDistinct(ps); err != nil {
		return nil, err
	}
	out := make([]catalog.PublishResult, len(ps))
	labels, commands := make([]string, len(ps)), make([]string, len(ps))
	ids, mutations := make([]string, len(ps)), make([]string, len(ps))
	var now int64
	for i, p := range ps {
		rev := p.Revision
		if err := checkTaskParams(p); err != nil {
			return nil, itemErr(i, err)
		}
		l, err := encodeLabels(rev.Spec.Labels)
		if err != nil {
			return nil, itemErr(i, qlerror.Wrap(qlerror.Invalid, err, "task.labels"))
		}
		c, err := task.EncodeCommand(rev.Spec.Command)
		if err != nil {
			return nil, itemErr(i, qlerror.Wrap(qlerror.Invalid, err, "task.command"))
		}
		labels[i], commands[i], ids[i], mutations[i] = string(l), string(c), rev.TaskID, rev.MutationID
		if now, err = t.publishTime(ctx, rev.ProjectID); err != nil {
			return nil, itemErr(i, err)
		}
	}
	done, err := replays(ctx, t.tx, sqlTaskReplays, ids, mutations)
	if err != nil {
		return nil, err
	}
	heads, err := t.taskHeads(ctx, ids)
	if err != nil {
		return nil, err
	}
	w := taskWrites{byProject: map[string][]string{}}
	for i, p := range ps {
		rev := p.Revision
		if s, ok := done[rev.TaskID]; ok {
			if out[i], err = catalog.CheckReplay(s, "task", rev.TaskID, rev.Spec.Name, rev.MutationID, rev.Revision, rev.ContentDigest); err != nil {
				return nil, itemErr(i, err)
			}
			continue
		}
		if err := w.add(p, heads, labels[i], commands[i]); err != nil {
			return nil, itemErr(i, err)
		}
		out[i] = catalog.PublishResult{Revision: rev.Revision, CreatedAtMs: now}
	}
	return out, t.writeTasks(ctx, &w, now)
}

func (t *adminTx) taskHeads(ctx context.Context, ids []string) (map[string]catalog.Head, error) {
	rows, err := t.tx.Query(ctx, sqlTaskHeadsLock, ids)
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

// add fences one revision on its head and queues its writes.
func (w *taskWrites) add(p catalog.TaskPublishParams, heads map[string]catalog.Head, labels, command string) error {
	rev := p.Revision
	h := heads[rev.TaskID]
	if err := catalog.CheckTaskHead(rev, h); err != nil {
		return err
	}
	if !h.Exists {
		w.newIDs, w.newProjects, w.newNames = append(w.newIDs, rev.TaskID), append(w.newProjects, rev.ProjectID), append(w.newNames, rev.Spec.Name)
	} else {
		w.advIDs, w.advNames, w.advRevisions = append(w.advIDs, rev.TaskID), append(w.advNames, rev.Spec.Name), append(w.advRevisions, rev.Revision)
	}
	w.revTasks, w.revProjects, w.revNames = append(w.revTasks, rev.TaskID), append(w.revProjects, rev.ProjectID), append(w.revNames, rev.Spec.Name)
	w.revLabels, w.revCommands, w.revDigests = append(w.revLabels, labels), append(w.revCommands, command), append(w.revDigests, rev.ContentDigest)
	w.revMutations, w.revRevisions, w.revEnabled = append(w.revMutations, rev.MutationID), append(w.revRevisions, rev.Revision), append(w.revEnabled, rev.Spec.Enabled)
	if e := p.Execution; e != nil {
		w.exTasks, w.exExecutors, w.exIDs = append(w.exTasks, e.TaskID), append(w.exExecutors, string(e.Executor)), append(w.exIDs, e.ID)
		w.exProjects, w.exTaskDigests, w.exCommands = append(w.exProjects, e.ProjectID), append(w.exTaskDigests, e.TaskContentDigest), append(w.exCommands, command)
		w.exDigests, w.exRevisions = append(w.exDigests, e.Digest), append(w.exRevisions, e.TaskRevision)
	}
	w.byProject[rev.ProjectID] = append(w.byProject[rev.ProjectID], rev.TaskID)
	return nil
}

// writeTasks writes a batch: heads, revisions, execution plans, then the
// eligibility of every trigger on a task whose head moved.
func (t *adminTx) writeTasks(ctx context.Context, w *taskWrites, now int64) error {
	if len(w.newIDs) > 0 {
		if _, err := t.tx.Exec(ctx, sqlTaskHeadsInsert, w.newIDs, w.newProjects, w.newNames, now); err != nil {
			return namesTaken(err, "task", w.newNames)
		}
	}
	if len(w.advIDs) > 0 {
		tag, err := t.tx.Exec(ctx, sqlTaskHeadsAdvance, w.advIDs, w.advNames, w.advRevisions, now)
		if err != nil {
			return namesTaken(err, "task", w.advNames)
		}
		if err := advanced("task", len(w.advIDs), tag.RowsAffected()); err != nil {
			return err
		}
	}
	if len(w.revTasks) == 0 {
		return nil
	}
	args, err := taskRevisionsInsertParams.args(pgx.StrictNamedArgs{
		"task_ids": w.revTasks, "revisions": w.revRevisions, "project_ids": w.revProjects, "names": w.revNames,
		"enabled": w.revEnabled, "labels": w.revLabels, "commands": w.revCommands, "content_digests": w.revDigests,
		"mutation_ids": w.revMutations, "created_at_ms": now,
	})
	if err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, sqlTaskRevisionsInsert, args...); err != nil {
		return err
	}
	if len(w.exTasks) > 0 {
		args, err := executionsInsertParams.args(pgx.StrictNamedArgs{
			"task_ids": w.exTasks, "task_revisions": w.exRevisions, "executors": w.exExecutors, "ids": w.exIDs,
			"project_ids": w.exProjects, "task_content_digests": w.exTaskDigests, "commands": w.exCommands,
			"digests": w.exDigests, "created_at_ms": now,
		})
		if err != nil {
			return err
		}
		if _, err := t.tx.Exec(ctx, sqlExecutionsInsert, args...); err != nil {
			return err
		}
	}
	// The new heads unpin every trigger still on an older revision.
	for projectID, tasks := range w.byProject {
		if err := refreshEligibility(ctx, t.tx, sqlEligibilityOfTasks, projectID, tasks); err != nil {
			return err
		}
	}
	return nil
}

// checkTaskParams rejects params the Service would never build: a digest
// that does not match, or an execution plan that is missing, present for a
// disabled revision, or not the plan of this revision.
func checkTaskParams(p catalog.TaskPublishParams) error {
	rev := p.Revision
	if rev.Revision < 1 || !digest.Valid(rev.ContentDigest) {
		return qlerror.New(qlerror.Invalid, "task %s: revision %d with digest %q is not publishable", rev.TaskID, rev.Revision, rev.ContentDigest)
	}
	if err := rev.VerifyDigest(); err != nil {
		return qlerror.Wrap(qlerror.Invalid, err, "task %s", rev.TaskID)
	}
	switch {
	case rev.Spec.Enabled && p.Execution == nil:
		return qlerror.New(qlerror.Invalid, "task %s revision %d is enabled but has no execution plan", rev.TaskID, rev.Revision)
	case !rev.Spec.Enabled && p.Execution != nil:
		return qlerror.New(qlerror.Invalid, "task %s revision %d is disabled and must not carry an execution plan", rev.TaskID, rev.Revision)
	case p.Execution != nil:
		if p.Execution.ProjectID != rev.ProjectID || p.Execution.TaskID != rev.TaskID {
			return qlerror.New(qlerror.Invalid, "execution plan %s is not for task %s", p.Execution.ID, rev.TaskID)
		}
		if err := p.Execution.Verify(rev.Revision, rev.ContentDigest, p.Execution.Executor); err != nil {
			return qlerror.Wrap(qlerror.Invalid, err, "task %s", rev.TaskID)
		}
	}
	return nil
}

func nameTaken(err error, kind, name string) error {
	if sqlState(err) == stateUniqueViolation {
		return qlerror.New(qlerror.Conflict, "%s name %q is taken by another %s in this project; choose another name", kind, name, kind)
	}
	return err
}
