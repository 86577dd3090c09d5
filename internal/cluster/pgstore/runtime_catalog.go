package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// The runtime role reads the catalog (its schedule admits from it, its
// API exports it), so a replica answers an apply's dry run, which only
// reads: the same queries as the admin store's, on the runtime pool. It
// publishes nothing; only the admin role may.
var _ catalog.Reader = (*Runtime)(nil)

// ProjectByName returns the named project or a NotFound error.
func (r *Runtime) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	p, err := projectByName(ctx, r.pool, name)
	return p, mapErr(err, "reading project "+name)
}

// TasksByName returns the current revisions of the named tasks that exist.
func (r *Runtime) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	out, err := tasksByName(ctx, r.pool, projectID, names)
	return out, mapErr(err, "reading tasks")
}

// TriggersByName returns the current revisions of the named triggers that
// exist.
func (r *Runtime) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	out, err := triggersByName(ctx, r.pool, projectID, names)
	return out, mapErr(err, "reading triggers")
}

// TriggerNamesOfTasks returns the names of the project's triggers bound to
// any of the tasks, in name order.
func (r *Runtime) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	out, err := triggerNamesOfTasks(ctx, r.pool, projectID, taskIDs)
	return out, mapErr(err, "reading triggers")
}

// TitlesOf returns the titles of the project's tasks and triggers that
// have one.
func (r *Runtime) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	t, err := titlesOf(ctx, r.pool, projectID)
	return t, mapErr(err, "reading titles")
}
