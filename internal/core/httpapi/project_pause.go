package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

// projectPause pauses or resumes a project ({project} its name or id,
// {"note": …} optional at a pause) with the same scope as a trigger's
// pause: the store pauses its triggers, records each with the token's
// name and address as the actor, and the project's pause beside them.
// Asking for the state it is in changes nothing (changed: false), as for a
// trigger: a retried request must not fail.
func (a *api) projectPause(pause bool) func(context.Context, *http.Request) (any, error) {
	return func(ctx context.Context, r *http.Request) (any, error) {
		if _, err := params(r.URL.Query()); err != nil {
			return nil, err
		}
		// As GET /api/v1/projects/{name}: a malformed name (an id has a
		// name's shape too) is 400, before any project is looked for.
		if err := validate.Name("project", r.PathValue("project")); err != nil {
			return nil, err
		}
		if a.ProjectPauser == nil {
			return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot pause or resume projects over the API; use `ql projects pause|resume`").Because(RefusalNotOverTheAPI)
		}
		var body pauseBody
		if err := a.decodeBody(r, &body); err != nil {
			return nil, err
		}
		name := r.PathValue("project")
		res, err := a.ProjectPauser.ProjectPause(ctx, schedule.ProjectPauseRequest{Project: name, Pause: pause, Note: body.Note, Actor: principalOf(ctx).actor()})
		if qlerror.CodeOf(err) == qlerror.NotFound && qlerror.ReasonOf(err) == schedule.RefusalProjectUnknown && a.Export != nil {
			// As GET /api/v1/projects/{name}: the refusal names the
			// projects there are, which a client can act on, rather than
			// a command to list them.
			return nil, boundMissing(ctx, name, apply.ProjectMissing(ctx, a.Export, name, tokenOf(ctx).Projects))
		}
		if err != nil {
			return nil, err
		}
		if res.Queued, err = a.queuedAtPause(ctx, pause, run.ListParams{ProjectID: res.ProjectID}); err != nil {
			return nil, err
		}
		return view.NewProjectPause(res), nil
	}
}

// queuedAtPause is, at a pause, how many Runs of filter p are queued and
// still start (run.CountQueued); 0 at a resume or where no Runs are read.
func (a *api) queuedAtPause(ctx context.Context, pause bool, p run.ListParams) (int, error) {
	if !pause || a.Runs == nil {
		return 0, nil
	}
	return run.CountQueued(ctx, a.Runs, p)
}
