package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/catalog"
	"github.com/qinglong/qinglong/internal/digest"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/task"
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
	rev := p.Revision
	if err := checkTaskParams(p); err != nil {
		return catalog.PublishResult{}, err
	}
	labels, err := encodeLabels(rev.Spec.Labels)
	if err != nil {
		return catalog.PublishResult{}, qlerror.Wrap(qlerror.Invalid, err, "task.labels")
	}
	command, err := encodeCommand(rev.Spec.Command)
	if err != nil {
		return catalog.PublishResult{}, qlerror.Wrap(qlerror.Invalid, err, "task.command")
	}
	var res catalog.PublishResult
	err = serializable(ctx, a.pool, func(tx pgx.Tx) error {
		res = catalog.PublishResult{}
		now, err := publishNow(ctx, tx, rev.ProjectID)
		if err != nil {
			return err
		}
		if replayed, err := mutationReplay(ctx, tx, sqlTaskRevisionByMutation, "task", rev.TaskID, rev.MutationID, rev.Revision, rev.ContentDigest, &res); replayed || err != nil {
			return err
		}
		if err := advanceTaskHead(ctx, tx, rev, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, sqlTaskRevisionInsert, rev.TaskID, rev.Revision, rev.ProjectID, rev.Spec.Name, rev.Spec.Enabled,
			labels, command, rev.ContentDigest, rev.MutationID, now)
		if err != nil {
			return err
		}
		if p.Execution != nil {
			e := p.Execution
			_, err = tx.Exec(ctx, sqlExecutionInsert, rev.TaskID, rev.Revision, string(e.Executor), e.ID, e.ProjectID,
				e.TaskContentDigest, command, e.Digest, now)
			if err != nil {
				return err
			}
		}
		// The new head unpins every trigger still on an older revision.
		if _, err := tx.Exec(ctx, sqlEligibilityOfTask, rev.ProjectID, rev.TaskID); err != nil {
			return err
		}
		res = catalog.PublishResult{Revision: rev.Revision, CreatedAtMs: now}
		return nil
	})
	if err != nil {
		return catalog.PublishResult{}, mapErr(err, "publishing task "+rev.Spec.Name)
	}
	return res, nil
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

// mutationReplay reports whether the mutation id was already applied to
// this task or trigger: with identical content (same revision and digest)
// the replay is accepted and res describes the original write; any drift is
// rejected. byMutation selects the revision row of (object id, mutation id).
func mutationReplay(ctx context.Context, tx pgx.Tx, byMutation, kind, id, mutationID string, revision int64, contentDigest string, res *catalog.PublishResult) (bool, error) {
	var storedRevision, createdAt int64
	var storedDigest string
	err := tx.QueryRow(ctx, byMutation, id, mutationID).Scan(&storedRevision, &storedDigest, &createdAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if storedRevision != revision || storedDigest != contentDigest {
		return false, qlerror.New(qlerror.MutationDrift, "%s %s: mutation id %q already published revision %d, with other content or over another revision; use a new mutation id for a new change",
			kind, id, mutationID, storedRevision)
	}
	*res = catalog.PublishResult{Revision: storedRevision, CreatedAtMs: createdAt, Replayed: true}
	return true, nil
}

// advanceTaskHead enforces the expected-revision fence and moves the head.
func advanceTaskHead(ctx context.Context, tx pgx.Tx, rev task.Revision, now int64) error {
	var projectID string
	var current int64
	err := tx.QueryRow(ctx, sqlTaskHeadLock, rev.TaskID).Scan(&projectID, &current)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && rev.Revision == 1:
		_, err = tx.Exec(ctx, sqlTaskHeadInsert, rev.TaskID, rev.ProjectID, rev.Spec.Name, rev.Revision, now)
		return nameTaken(err, "task", rev.Spec.Name)
	case errors.Is(err, pgx.ErrNoRows):
		return qlerror.New(qlerror.NotFound, "task %s does not exist; create it with expected revision 0", rev.TaskID)
	case err != nil:
		return err
	case projectID != rev.ProjectID:
		return qlerror.New(qlerror.FailedPrecondition, "task %s belongs to project %s, not %s; a task never moves between projects", rev.TaskID, projectID, rev.ProjectID)
	case current != rev.Revision-1:
		return qlerror.New(qlerror.Conflict, "task %s is at revision %d but the write expected %d; re-read it and retry", rev.TaskID, current, rev.Revision-1)
	}
	_, err = tx.Exec(ctx, sqlTaskHeadUpdate, rev.TaskID, rev.Spec.Name, rev.Revision, now)
	return nameTaken(err, "task", rev.Spec.Name)
}

func nameTaken(err error, kind, name string) error {
	if sqlState(err) == stateUniqueViolation {
		return qlerror.New(qlerror.Conflict, "%s name %q is taken by another %s in this project; choose another name", kind, name, kind)
	}
	return err
}
