package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/catalog"
	"github.com/qinglong/qinglong/internal/digest"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/trigger"
)

// TriggerByName returns the current revision of the named trigger, its
// digest verified.
func (a *Admin) TriggerByName(ctx context.Context, projectID, name string) (trigger.Revision, error) {
	var r trigger.Revision
	var policy string
	err := a.pool.QueryRow(ctx, sqlTriggerCurrentByName, projectID, name).Scan(&r.TriggerID, &r.ProjectID, &r.TaskID, &r.Revision,
		&r.TaskRevision, &r.TaskContentDigest, &r.Spec.Name, &r.Spec.Enabled, &r.Spec.Cron.Expression, &r.Spec.Cron.Timezone,
		&policy, &r.ContentDigest, &r.MutationID, &r.CreatedAtMs)
	if errors.Is(err, pgx.ErrNoRows) {
		return trigger.Revision{}, qlerror.New(qlerror.NotFound, "trigger %q does not exist in project %s", name, projectID)
	}
	if err != nil {
		return trigger.Revision{}, mapErr(err, "reading trigger "+name)
	}
	r.Spec.Cron.MisfirePolicy = trigger.MisfirePolicy(policy)
	return r, r.VerifyDigest()
}

// TriggerPublish appends a trigger revision pinned to a task revision and
// upserts its schedule row in the same SERIALIZABLE transaction.
func (a *Admin) TriggerPublish(ctx context.Context, p catalog.TriggerPublishParams) (catalog.PublishResult, error) {
	rev := p.Revision
	if rev.Revision < 1 || !digest.Valid(rev.ContentDigest) {
		return catalog.PublishResult{}, qlerror.New(qlerror.Invalid, "trigger %s: revision %d with digest %q is not publishable", rev.TriggerID, rev.Revision, rev.ContentDigest)
	}
	if err := rev.VerifyDigest(); err != nil {
		return catalog.PublishResult{}, qlerror.Wrap(qlerror.Invalid, err, "trigger %s", rev.TriggerID)
	}
	var res catalog.PublishResult
	err := serializable(ctx, a.pool, func(tx pgx.Tx) error {
		res = catalog.PublishResult{}
		now, err := publishNow(ctx, tx, rev.ProjectID)
		if err != nil {
			return err
		}
		if replayed, err := mutationReplay(ctx, tx, sqlTriggerRevisionByMutation, "trigger", rev.TriggerID, rev.MutationID, rev.Revision, rev.ContentDigest, &res); replayed || err != nil {
			return err
		}
		if err := checkPinnedTask(ctx, tx, rev); err != nil {
			return err
		}
		if err := advanceTriggerHead(ctx, tx, rev, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, sqlTriggerRevisionInsert, rev.TriggerID, rev.Revision, rev.ProjectID, rev.TaskID, rev.TaskRevision,
			rev.TaskContentDigest, rev.Spec.Name, rev.Spec.Enabled, rev.Spec.Cron.Expression, rev.Spec.Cron.Timezone,
			string(rev.Spec.Cron.MisfirePolicy), rev.ContentDigest, rev.MutationID, now)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlScheduleUpsert, rev.TriggerID, rev.ProjectID, rev.Revision, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlEligibilityOfTrigger, rev.TriggerID); err != nil {
			return err
		}
		res = catalog.PublishResult{Revision: rev.Revision, CreatedAtMs: now}
		return nil
	})
	if err != nil {
		return catalog.PublishResult{}, mapErr(err, "publishing trigger "+rev.Spec.Name)
	}
	return res, nil
}

// checkPinnedTask: the pinned task revision exists in this project with the
// pinned digest, and an enabled trigger pins only an enabled task revision.
func checkPinnedTask(ctx context.Context, tx pgx.Tx, rev trigger.Revision) error {
	var projectID, contentDigest string
	var enabled bool
	err := tx.QueryRow(ctx, sqlPinnedTaskRevision, rev.TaskID, rev.TaskRevision).Scan(&projectID, &contentDigest, &enabled)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s pins task %s revision %d, which does not exist; publish the task first", rev.Spec.Name, rev.TaskID, rev.TaskRevision)
	case err != nil:
		return err
	case projectID != rev.ProjectID:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s pins task %s of another project", rev.Spec.Name, rev.TaskID)
	case contentDigest != rev.TaskContentDigest:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s pins task %s revision %d with digest %s, but that revision's digest is %s",
			rev.Spec.Name, rev.TaskID, rev.TaskRevision, rev.TaskContentDigest, contentDigest)
	case rev.Spec.Enabled && !enabled:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s: an enabled trigger cannot pin disabled task %s revision %d; enable the task or disable the trigger",
			rev.Spec.Name, rev.TaskID, rev.TaskRevision)
	}
	return nil
}

// advanceTriggerHead enforces the expected-revision fence and that a
// trigger never moves to another task.
func advanceTriggerHead(ctx context.Context, tx pgx.Tx, rev trigger.Revision, now int64) error {
	var taskID string
	var current int64
	err := tx.QueryRow(ctx, sqlTriggerHeadLock, rev.TriggerID).Scan(&taskID, &current)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && rev.Revision == 1:
		_, err = tx.Exec(ctx, sqlTriggerHeadInsert, rev.TriggerID, rev.ProjectID, rev.TaskID, rev.Spec.Name, rev.Revision, now)
		return nameTaken(err, "trigger", rev.Spec.Name)
	case errors.Is(err, pgx.ErrNoRows):
		return qlerror.New(qlerror.NotFound, "trigger %s does not exist; create it with expected revision 0", rev.TriggerID)
	case err != nil:
		return err
	case taskID != rev.TaskID:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s is bound to task %s and can never move to task %s; create a new trigger instead",
			rev.TriggerID, taskID, rev.TaskID)
	case current != rev.Revision-1:
		return qlerror.New(qlerror.Conflict, "trigger %s is at revision %d but the write expected %d; re-read it and retry", rev.TriggerID, current, rev.Revision-1)
	}
	_, err = tx.Exec(ctx, sqlTriggerHeadUpdate, rev.TriggerID, rev.Spec.Name, rev.Revision, now)
	return nameTaken(err, "trigger", rev.Spec.Name)
}
