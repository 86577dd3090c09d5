package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/catalog"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/trigger"
)

// TriggerByName returns the current revision of the named trigger, its
// digest verified.
func (s *Store) TriggerByName(ctx context.Context, projectID, name string) (trigger.Revision, error) {
	r, err := scanTrigger(s.readPool().QueryRowContext(ctx, qTriggerByName, projectID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return r, qlerror.New(qlerror.NotFound, "trigger %q does not exist in project %s", name, projectID)
	}
	return r, mapErr(err, "read trigger "+name)
}

// scanTrigger reads a current trigger revision and verifies its digest.
func scanTrigger(row interface{ Scan(...any) error }) (trigger.Revision, error) {
	var r trigger.Revision
	var enabled int
	err := row.Scan(&r.TriggerID, &r.ProjectID, &r.TaskID, &r.Revision, &r.TaskRevision, &r.TaskContentDigest,
		&r.Spec.Name, &enabled, &r.Spec.Cron.Expression, &r.Spec.Cron.Timezone, &r.Spec.Cron.MisfirePolicy,
		&r.ContentDigest, &r.MutationID, &r.CreatedAtMs)
	if err != nil {
		return r, err
	}
	r.Spec.Enabled = enabled == 1
	return r, r.VerifyDigest()
}

// TriggerPublish appends a trigger revision and resets its schedule row in
// the same transaction.
func (s *Store) TriggerPublish(ctx context.Context, p catalog.TriggerPublishParams) (catalog.PublishResult, error) {
	var res catalog.PublishResult
	err := s.write(ctx, "publish trigger "+p.Revision.Spec.Name, durable, func(tx *txn) error {
		var err error
		res, err = (&catalogTx{s: s, tx: tx, now: s.nowMs()}).publishTrigger(ctx, p)
		return err
	})
	return res, err
}

// publishTrigger is one trigger revision of a publishing transaction.
func (c *catalogTx) publishTrigger(ctx context.Context, p catalog.TriggerPublishParams) (catalog.PublishResult, error) {
	r := p.Revision
	if err := r.VerifyDigest(); err != nil {
		return catalog.PublishResult{}, err
	}
	tx := c.tx
	if err := activeProject(ctx, tx, r.ProjectID); err != nil {
		return catalog.PublishResult{}, err
	}
	var res catalog.PublishResult
	if replayed, err := mutationReplay(ctx, tx, qTriggerRevisionByMutation, "trigger", r.TriggerID, r.Spec.Name, r.MutationID, r.Revision, r.ContentDigest, &res); replayed || err != nil {
		return res, err
	}
	if err := checkPin(ctx, tx, r); err != nil {
		return res, err
	}
	if err := advanceTriggerHead(ctx, tx, r, c.now); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, qTriggerRevisionInsert, r.TriggerID, r.Revision, r.ProjectID, r.TaskID, r.TaskRevision, r.TaskContentDigest,
		r.Spec.Name, boolInt(r.Spec.Enabled), r.Spec.Cron.Expression, r.Spec.Cron.Timezone, string(r.Spec.Cron.MisfirePolicy),
		r.ContentDigest, r.MutationID, c.now); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, qScheduleReset, r.TriggerID, r.ProjectID, r.Revision, boolInt(r.Spec.Enabled), c.now); err != nil {
		return res, err
	}
	return catalog.PublishResult{Revision: r.Revision, CreatedAtMs: c.now}, nil
}

// checkPin enforces what a trigger revision may pin: an existing revision
// of its task, in its project, with the pinned digest, enabled if the
// trigger is.
func checkPin(ctx context.Context, tx *txn, r trigger.Revision) error {
	var project, digest string
	var enabled int
	err := tx.QueryRowContext(ctx, qTaskRevisionPin, r.TaskID, r.TaskRevision).Scan(&project, &digest, &enabled)
	if errors.Is(err, sql.ErrNoRows) {
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q pins task %s revision %d, which does not exist; publish the task first", r.Spec.Name, r.TaskID, r.TaskRevision)
	}
	if err != nil {
		return err
	}
	switch {
	case project != r.ProjectID:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q pins task %s of another project", r.Spec.Name, r.TaskID)
	case digest != r.TaskContentDigest:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q pins task %s revision %d with digest %s, but that revision's digest is %s", r.Spec.Name, r.TaskID, r.TaskRevision, r.TaskContentDigest, digest)
	case r.Spec.Enabled && enabled != 1:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q is enabled but pins disabled task revision %d; enable the task or disable the trigger", r.Spec.Name, r.TaskRevision)
	}
	return nil
}

func advanceTriggerHead(ctx context.Context, tx *txn, r trigger.Revision, now int64) error {
	var headProject, headTask string
	var current int64
	err := tx.QueryRowContext(ctx, qTriggerHead, r.TriggerID).Scan(&headProject, &headTask, &current)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	expected := r.Revision - 1
	switch {
	case exists && headProject != r.ProjectID:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s belongs to project %s, not %s", r.TriggerID, headProject, r.ProjectID)
	case exists && headTask != r.TaskID:
		return qlerror.New(qlerror.FailedPrecondition, "trigger %q is bound to task %s and cannot move to task %s; create a new trigger instead", r.Spec.Name, headTask, r.TaskID)
	case exists && current != expected:
		return qlerror.New(qlerror.Conflict, "trigger %q is at revision %d, not the expected %d; re-read it and publish again", r.Spec.Name, current, expected)
	case !exists && expected != 0:
		return qlerror.New(qlerror.NotFound, "trigger %q (%s) does not exist; publish it with expected revision 0 to create it", r.Spec.Name, r.TriggerID)
	case !exists:
		_, err := tx.ExecContext(ctx, qTriggerInsert, r.TriggerID, r.ProjectID, r.TaskID, r.Spec.Name, now, now)
		return nameTaken(err, "trigger", r.Spec.Name, r.ProjectID)
	}
	res, err := tx.ExecContext(ctx, qTriggerAdvance, r.Spec.Name, r.Revision, now, r.TriggerID, expected)
	if err != nil {
		return nameTaken(err, "trigger", r.Spec.Name, r.ProjectID)
	}
	return exactlyOne(res, qlerror.Conflict, "trigger %q moved past revision %d during the publish; re-read it and publish again", r.Spec.Name, expected)
}
