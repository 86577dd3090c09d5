package catalog

import (
	"context"

	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/task"
	"github.com/qinglong/qinglong/internal/trigger"
)

// Service builds revisions (validation, digests, execution plans) and hands
// them to the Store, whose transaction enforces the fences.
type Service struct {
	Store    Store
	Executor task.Executor
	// NowMs is used only to check that a cron expression can fire at all;
	// revision timestamps come from the store.
	NowMs func() int64
}

// PublishTask publishes spec as revision expected+1 of the task.
func (s Service) PublishTask(ctx context.Context, projectID, taskID string, expected int64, mutationID string, spec task.Spec) (task.Revision, PublishResult, error) {
	rev, err := task.NewRevision(projectID, taskID, expected, mutationID, spec)
	if err != nil {
		return task.Revision{}, PublishResult{}, err
	}
	p := TaskPublishParams{Revision: rev}
	if rev.Spec.Enabled {
		plan, err := task.PlanExecution(rev, s.Executor)
		if err != nil {
			return task.Revision{}, PublishResult{}, err
		}
		p.Execution = &plan
	}
	res, err := s.Store.TaskPublish(ctx, p)
	if err != nil {
		return task.Revision{}, PublishResult{}, err
	}
	rev.Revision, rev.CreatedAtMs = res.Revision, res.CreatedAtMs
	return rev, res, nil
}

// PublishTrigger publishes spec as revision expected+1 of the trigger,
// pinned to the given task revision.
func (s Service) PublishTrigger(ctx context.Context, projectID, triggerID string, pinned task.Revision, expected int64, mutationID string, spec trigger.Spec) (trigger.Revision, PublishResult, error) {
	if pinned.ProjectID != projectID {
		return trigger.Revision{}, PublishResult{}, qlerror.New(qlerror.FailedPrecondition, "trigger %s: task %s belongs to another project", spec.Name, pinned.TaskID)
	}
	if spec.Enabled && !pinned.Spec.Enabled {
		return trigger.Revision{}, PublishResult{}, qlerror.New(qlerror.FailedPrecondition, "trigger %s: an enabled trigger cannot pin disabled task %s revision %d; enable the task or disable the trigger", spec.Name, pinned.Spec.Name, pinned.Revision)
	}
	rev, err := trigger.NewRevision(projectID, triggerID, pinned.TaskID, pinned.Revision, pinned.ContentDigest, expected, mutationID, spec, s.NowMs())
	if err != nil {
		return trigger.Revision{}, PublishResult{}, err
	}
	res, err := s.Store.TriggerPublish(ctx, TriggerPublishParams{Revision: rev})
	if err != nil {
		return trigger.Revision{}, PublishResult{}, err
	}
	rev.Revision, rev.CreatedAtMs = res.Revision, res.CreatedAtMs
	return rev, res, nil
}
