package replica

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A replica answers an apply's dry run (POST /api/v1/apply?dryRun=true)
// through the live activation's runtime role, which reads what the plan
// reads; a real apply stays the admin role's.
var _ catalog.Reader = liveReaders{}

func (l liveReaders) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	rt, err := l.runtime()
	if err != nil {
		return project.Project{}, err
	}
	return rt.ProjectByName(ctx, name)
}

func (l liveReaders) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, err
	}
	return rt.TasksByName(ctx, projectID, names)
}

func (l liveReaders) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, err
	}
	return rt.TriggersByName(ctx, projectID, names)
}

func (l liveReaders) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	rt, err := l.runtime()
	if err != nil {
		return nil, err
	}
	return rt.TriggerNamesOfTasks(ctx, projectID, taskIDs)
}

func (l liveReaders) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	rt, err := l.runtime()
	if err != nil {
		return catalog.Titles{}, err
	}
	return rt.TitlesOf(ctx, projectID)
}
