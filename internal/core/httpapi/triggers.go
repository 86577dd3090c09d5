package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// Trigger listing page bounds, and how many runs and ledger entries one
// trigger's detail shows.
const (
	defaultTriggerPage = 100
	maxTriggerPage     = 500
	detailRuns         = 10
	defaultLedger      = 20
)

// triggerList is a page of triggers as `ql triggers list -o json` prints
// it, each with its newest Run (one index probe per trigger), unless
// ?lastRun=false: a caller that finds a trigger or project by name reads
// no Run, and would otherwise pay up to maxTriggerPage probes a page.
func (a *api) triggerList(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "after", "limit", "project", "lastRun", "search")
	if err != nil {
		return nil, err
	}
	n, err := count("limit", q["limit"], defaultTriggerPage, maxTriggerPage)
	if err != nil {
		return nil, err
	}
	withLast, err := boolean("lastRun", q["lastRun"], true)
	if err != nil {
		return nil, err
	}
	project, err := a.listingProject(ctx, q["project"])
	if err != nil {
		return nil, err
	}
	if project, err = idParam("project", project, projectIDHint); err != nil {
		return nil, err
	}
	after, err := idParam("after", q["after"], cursorHint)
	if err != nil {
		return nil, err
	}
	list, next, err := a.Triggers.TriggerList(ctx, schedule.TriggerListParams{ProjectID: project, Limit: n, After: after, Search: q["search"], InProjects: tokenOf(ctx).Projects})
	if err != nil {
		return nil, err
	}
	var last map[string]run.Last
	if withLast && a.LastRuns != nil && len(list) > 0 {
		if last, err = a.LastRuns.RunsLast(ctx, view.TriggerIDs(list)); err != nil {
			return nil, err
		}
	}
	return view.NewTriggerList(list, next, boundLast(ctx, last)), nil
}

// triggerGet is one trigger as `ql triggers show -o json` prints it: its
// schedule and pause state, next fire times, last runs (?runs=N,
// 1–run.MaxPageSize) and whether older ones exist, and newest ledger
// entries (?ledger=N, 1–view.MaxLedgerShown, which is the whole ledger)
// and whether older ones exist.
func (a *api) triggerGet(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "ledger", "runs")
	if err != nil {
		return nil, err
	}
	n, err := count("ledger", q["ledger"], defaultLedger, view.MaxLedgerShown)
	if err != nil {
		return nil, err
	}
	runs, err := count("runs", q["runs"], detailRuns, run.MaxPageSize)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	d, err := a.Detail.TriggerDetail(ctx, id, view.DetailLedgerRead(n))
	if err != nil {
		return nil, err
	}
	list, next, err := a.Runs.RunList(ctx, run.ListParams{TriggerID: id, Limit: runs})
	if err != nil {
		return nil, err
	}
	v, err := view.NewTriggerDetail(d, list, next, n)
	if err != nil || a.LastRuns == nil {
		return v, err
	}
	last, err := a.LastRuns.RunsLast(ctx, []string{v.Trigger.TriggerID})
	if err != nil {
		return nil, err
	}
	v.Trigger.Warnings = view.WarningsOf(v.Trigger.Cron, boundLast(ctx, last)[v.Trigger.TriggerID])
	return v, nil
}
