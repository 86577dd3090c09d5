package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/schedule"
)

// Trigger listing page bounds.
const (
	defaultTriggerPage = 100
	maxTriggerPage     = 500
)

type cronJSON struct {
	Expression    string `json:"expression"`
	Timezone      string `json:"timezone"`
	MisfirePolicy string `json:"misfirePolicy"`
}

// triggerJSON is a trigger's current revision with its schedule state.
type triggerJSON struct {
	ProjectID         string   `json:"projectId"`
	ProjectName       string   `json:"projectName"`
	TriggerID         string   `json:"triggerId"`
	Name              string   `json:"name"`
	Revision          int64    `json:"revision"`
	Enabled           bool     `json:"enabled"`
	Cron              cronJSON `json:"cron"`
	TaskID            string   `json:"taskId"`
	TaskName          string   `json:"taskName"`
	TaskRevision      int64    `json:"taskRevision"`
	NextFireAtMs      *int64   `json:"nextFireAtMs"`
	LastScheduledAtMs *int64   `json:"lastScheduledAtMs"`
	StateVersion      int64    `json:"stateVersion"`
	ClaimOwner        *string  `json:"claimOwner"`
	ClaimExpiresAtMs  *int64   `json:"claimExpiresAtMs"`
}

type triggerListJSON struct {
	Triggers []triggerJSON `json:"triggers"`
	Next     string        `json:"next,omitempty"`
}

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
	out := triggerListJSON{Triggers: make([]triggerJSON, 0, len(list)), Next: next}
	for _, t := range list {
		out.Triggers = append(out.Triggers, triggerJSON{
			ProjectID: t.ProjectID, ProjectName: t.ProjectName, TriggerID: t.TriggerID, Name: t.Name, Revision: t.Revision,
			Enabled: t.Enabled, Cron: cronJSON{Expression: t.Cron.Expression, Timezone: t.Cron.Timezone, MisfirePolicy: string(t.Cron.MisfirePolicy)},
			TaskID: t.TaskID, TaskName: t.TaskName, TaskRevision: t.TaskRevision, NextFireAtMs: t.NextFireAtMs,
			LastScheduledAtMs: t.LastScheduledAtMs, StateVersion: t.StateVersion, ClaimOwner: t.ClaimOwner, ClaimExpiresAtMs: t.ClaimExpiresAtMs,
		})
	}
	return out, nil
}
