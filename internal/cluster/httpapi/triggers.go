package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// Trigger listing page bounds.
const (
	defaultTriggerPage = 100
	maxTriggerPage     = 500
)

func (a *api) triggerList(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "after", "limit", "project")
	if err != nil {
		return nil, err
	}
	n, err := limit(q["limit"], defaultTriggerPage, maxTriggerPage)
	if err != nil {
		return nil, err
	}
	list, next, err := a.Triggers.TriggerList(ctx, schedule.TriggerListParams{ProjectID: q["project"], Limit: n, After: q["after"]})
	if err != nil {
		return nil, err
	}
	return view.NewTriggerList(list, next), nil
}
