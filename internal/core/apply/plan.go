package apply

import (
	"context"
	"fmt"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Planned describes the result as what a dry run would do.
func (r Result) Planned() string {
	verb := map[catalog.Change]string{catalog.Created: "would create", catalog.Updated: "would update"}[r.Change]
	if verb == "" {
		verb = string(r.Change)
	}
	switch {
	case len(r.Fields) > 0 && r.Change == catalog.Created:
		verb += " with " + strings.Join(r.Fields, ", ")
	case len(r.Fields) > 0:
		verb += " " + strings.Join(r.Fields, ", ")
	}
	if r.Runs != "" {
		verb += "; " + r.Runs
	}
	if r.Revision > 0 {
		return fmt.Sprintf("%s %s: %s (revision %d)", r.Kind, r.Name, verb, r.Revision)
	}
	return fmt.Sprintf("%s %s: %s", r.Kind, r.Name, verb)
}

// dryTx reads through r (nothing exists when r is nil) and writes
// nothing: each publish answers as if it had been written, after the check
// a store makes first, that the project is active.
type dryTx struct {
	r      catalog.Reader
	status map[string]project.Status
}

var _ catalog.DefinitionsTx = (*dryTx)(nil)

// ProjectDefinitions reads the project whole through r where r can, so
// that a dry run refuses a project env a task the file leaves out could
// not start with (otherTasksFit), as the apply does; a reader that cannot
// has no tasks to check.
func (d *dryTx) ProjectDefinitions(ctx context.Context, name string, limit int) (catalog.Definitions, error) {
	dr, ok := d.r.(catalog.DefinitionsReader)
	if !ok {
		return catalog.Definitions{}, nil
	}
	return dr.ProjectDefinitions(ctx, name, limit)
}

func (d *dryTx) ProjectByName(ctx context.Context, name string) (project.Project, error) {
	if d.r == nil {
		return project.Project{}, qlerror.New(qlerror.NotFound, "project %q does not exist", name).Because(catalog.RefusalProjectMissing, "name", name)
	}
	p, err := d.r.ProjectByName(ctx, name)
	if err == nil {
		d.status[p.ID] = p.Status
	}
	return p, err
}

func (d *dryTx) TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error) {
	if d.r == nil {
		return map[string]task.Revision{}, nil
	}
	return d.r.TasksByName(ctx, projectID, names)
}

func (d *dryTx) TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error) {
	if d.r == nil {
		return map[string]trigger.Revision{}, nil
	}
	return d.r.TriggersByName(ctx, projectID, names)
}

func (d *dryTx) TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error) {
	if d.r == nil {
		return nil, nil
	}
	return d.r.TriggerNamesOfTasks(ctx, projectID, taskIDs)
}

func (d *dryTx) TitlesOf(ctx context.Context, projectID string) (catalog.Titles, error) {
	if d.r == nil {
		return catalog.Titles{}, nil
	}
	return d.r.TitlesOf(ctx, projectID)
}

func (d *dryTx) TitlesSave(context.Context, string, catalog.Titles) error { return nil }

func (d *dryTx) ProjectSave(_ context.Context, p project.Project) (catalog.Change, error) {
	d.status[p.ID] = p.Status
	return "", nil
}

func (d *dryTx) TasksPublish(_ context.Context, ps []catalog.TaskPublishParams) ([]catalog.PublishResult, error) {
	out := make([]catalog.PublishResult, len(ps))
	for i, p := range ps {
		if err := d.active(p.Revision.ProjectID); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		out[i].Revision = p.Revision.Revision
	}
	return out, nil
}

func (d *dryTx) TriggersPublish(_ context.Context, ps []catalog.TriggerPublishParams) ([]catalog.PublishResult, error) {
	out := make([]catalog.PublishResult, len(ps))
	for i, p := range ps {
		if err := d.active(p.Revision.ProjectID); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		out[i].Revision = p.Revision.Revision
	}
	return out, nil
}

func (d *dryTx) active(projectID string) error {
	if s := d.status[projectID]; s != project.Active {
		return qlerror.New(qlerror.FailedPrecondition, "the project is %s; set its status to active before publishing to it", s).Because(catalog.RefusalProjectArchived)
	}
	return nil
}
