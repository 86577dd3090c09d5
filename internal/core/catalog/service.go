package catalog

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
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

// TaskParams builds the publish of spec as revision expected+1 of the
// task: the revision and, when it is enabled, its execution plan.
func (s Service) TaskParams(projectID, taskID string, expected int64, mutationID string, spec task.Spec) (TaskPublishParams, error) {
	rev, err := task.NewRevision(projectID, taskID, expected, mutationID, spec)
	if err != nil {
		return TaskPublishParams{}, err
	}
	p := TaskPublishParams{Revision: rev}
	if rev.Spec.Enabled {
		plan, err := task.PlanExecution(rev, s.Executor)
		if err != nil {
			return TaskPublishParams{}, err
		}
		p.Execution = &plan
	}
	return p, nil
}

// TriggerParams builds the publish of spec as revision expected+1 of the
// trigger, pinned to the given task revision.
func (s Service) TriggerParams(projectID, triggerID string, pinned task.Revision, expected int64, mutationID string, spec trigger.Spec) (TriggerPublishParams, error) {
	rev, err := trigger.NewRevision(projectID, triggerID, pinned.TaskID, pinned.Revision, pinned.ContentDigest, expected, mutationID, spec, s.NowMs())
	if err != nil {
		return TriggerPublishParams{}, err
	}
	// The store checks the pin again against what it reads in its
	// transaction; checking here too fails a plan before anything is sent.
	if err := CheckPin(rev, PinnedTask{ProjectID: pinned.ProjectID, Digest: pinned.ContentDigest, Enabled: pinned.Spec.Enabled}, true); err != nil {
		return TriggerPublishParams{}, err
	}
	return TriggerPublishParams{Revision: rev}, nil
}

// PublishTask publishes spec as revision expected+1 of the task.
func (s Service) PublishTask(ctx context.Context, projectID, taskID string, expected int64, mutationID string, spec task.Spec) (task.Revision, PublishResult, error) {
	p, err := s.TaskParams(projectID, taskID, expected, mutationID, spec)
	if err != nil {
		return task.Revision{}, PublishResult{}, err
	}
	res, err := s.Store.TaskPublish(ctx, p)
	if err != nil {
		return task.Revision{}, PublishResult{}, err
	}
	rev := p.Revision
	rev.Revision, rev.CreatedAtMs = res.Revision, res.CreatedAtMs
	return rev, res, nil
}

// PublishTrigger publishes spec as revision expected+1 of the trigger,
// pinned to the given task revision.
func (s Service) PublishTrigger(ctx context.Context, projectID, triggerID string, pinned task.Revision, expected int64, mutationID string, spec trigger.Spec) (trigger.Revision, PublishResult, error) {
	p, err := s.TriggerParams(projectID, triggerID, pinned, expected, mutationID, spec)
	if err != nil {
		return trigger.Revision{}, PublishResult{}, err
	}
	res, err := s.Store.TriggerPublish(ctx, p)
	if err != nil {
		return trigger.Revision{}, PublishResult{}, err
	}
	rev := p.Revision
	rev.Revision, rev.CreatedAtMs = res.Revision, res.CreatedAtMs
	return rev, res, nil
}
