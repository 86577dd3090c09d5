package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

func (a *api) runList(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), takes(a.Binary, "GET /api/v1/runs", "after", "from", "limit", "project", "state", "to", "trigger", "worker")...)
	if err != nil {
		return nil, err
	}
	from, err := run.WindowBound("from", q["from"])
	if err != nil {
		return nil, err
	}
	to, err := run.WindowBound("to", q["to"])
	if err != nil {
		return nil, err
	}
	n, err := count("limit", q["limit"], run.DefaultPageSize, run.MaxPageSize)
	if err != nil {
		return nil, err
	}
	project, err := a.listingProject(ctx, q["project"])
	if err != nil {
		return nil, err
	}
	// Refused as the other listings refuse a parameter that is no id.
	if project, err = idParam("project", project, projectIDHint); err != nil {
		return nil, err
	}
	trigger, err := idParam("trigger", q["trigger"], triggerIDHint)
	if err != nil {
		return nil, err
	}
	after, err := idParam("after", q["after"], cursorHint)
	if err != nil {
		return nil, err
	}
	list, next, err := a.Runs.RunList(ctx, run.ListParams{ProjectID: project, TriggerID: trigger, State: run.State(q["state"]), Limit: n, After: after, Worker: q["worker"],
		FromMs: from, ToMs: to, InProjects: tokenOf(ctx).Projects})
	if err != nil {
		return nil, err
	}
	return view.NewRunList(list, next), nil
}

func (a *api) runGet(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	d, err := a.Runs.RunGet(ctx, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if d.Waiting != nil {
		w := *d.Waiting
		w.Holders, w.OtherProjectsRuns = boundHolders(ctx, w.Holders)
		d.Waiting = &w
	}
	return view.NewRunDetail(d), nil
}
