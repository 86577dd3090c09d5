package httpapi

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// listingProject is the project a listing's ?project= names, as its id:
// an id as it came, or a project's name looked up, as the command line
// and the console take a name, so that a client need not ask GET
// /api/v1/projects/{name} for the id first; "" when left out. A name no
// project has is 404 project_missing, and one a bound token is not bound
// to is 403 project_not_in_scope, whether it exists or not, as a path's
// project is. Anything else comes back as it came, for the listing to
// refuse as no id.
func (a *api) listingProject(ctx context.Context, raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	if id, isID := canonicalID(raw); isID {
		return id, nil
	}
	if a.Export == nil || validate.Name("project", raw) != nil {
		return raw, nil
	}
	if err := covers(tokenOf(ctx), raw); err != nil {
		return "", err
	}
	d, err := a.Export.ProjectDefinitions(ctx, raw, 1)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return "", boundMissing(ctx, raw, apply.ProjectMissing(ctx, a.Export, raw, tokenOf(ctx).Projects))
	}
	if err != nil {
		return "", err
	}
	return d.Project.ID, nil
}
