package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

// projectList lists the projects there are, in name order, with their
// status and whether they are paused. Read scope, as projectGet: a reader
// finds a project's name here, not by guessing at the routes that refuse
// an unknown one.
func (a *api) projectList(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "after", "limit")
	if err != nil {
		return nil, err
	}
	n, err := count("limit", q["limit"], view.ProjectListLimit, view.ProjectListLimit)
	if err != nil {
		return nil, err
	}
	if a.Export == nil {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot read projects; run the command where its database is").Because(RefusalNotOverTheAPI)
	}
	// A token bound to projects sees its own alone (listed), kept before
	// the limit cuts so that however many other projects sort first. The
	// cursor is the previous page's last name: any text orders, so none
	// is refused.
	names, err := a.Export.ProjectNames(ctx, q["after"], n+1, tokenOf(ctx).Projects)
	if err != nil {
		return nil, err
	}
	return view.NewProjectList(names, n), nil
}

// projectGet finds a project by name. Read scope, as the listings it
// serves: a project whose file had tasks alone has no trigger yet, so the
// trigger listing, where a reader finds the other projects' ids, does not
// know it, and a listing filtered by it must be an empty list, not an
// unknown name.
func (a *api) projectGet(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Export == nil {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot read projects; run the command where its database is").Because(RefusalNotOverTheAPI)
	}
	// As the definitions route: a malformed name is 400, an unknown one
	// 404 naming the projects there are.
	name := r.PathValue("name")
	if err := validate.Name("project", name); err != nil {
		return nil, err
	}
	d, err := a.Export.ProjectDefinitions(ctx, name, apply.RevisionLimit)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return nil, boundMissing(ctx, name, apply.ProjectMissing(ctx, a.Export, name, tokenOf(ctx).Projects))
	}
	if err != nil {
		return nil, err
	}
	rev := apply.SpecRevision(d)
	p := view.NewProject(d.Project, rev)
	if a.ProjectPauses != nil {
		st, err := a.ProjectPauses.ProjectPauseRead(ctx, d.Project.ID)
		if err != nil {
			return nil, err
		}
		p.Pause = view.NewProjectPauseState(st)
	}
	return taggedAnswer{ETag: rev, Body: p}, nil
}
