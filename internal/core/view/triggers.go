package view

import "github.com/qinglong/qinglong/internal/core/schedule"

// Cron is a trigger's schedule.
type Cron struct {
	Expression    string `json:"expression"`
	Timezone      string `json:"timezone"`
	MisfirePolicy string `json:"misfirePolicy"`
}

// Trigger is a trigger's current revision with its schedule state.
type Trigger struct {
	ProjectID         string  `json:"projectId"`
	ProjectName       string  `json:"projectName"`
	TriggerID         string  `json:"triggerId"`
	Name              string  `json:"name"`
	Revision          int64   `json:"revision"`
	Enabled           bool    `json:"enabled"`
	Cron              Cron    `json:"cron"`
	TaskID            string  `json:"taskId"`
	TaskName          string  `json:"taskName"`
	TaskRevision      int64   `json:"taskRevision"`
	NextFireAtMs      *int64  `json:"nextFireAtMs"`
	LastScheduledAtMs *int64  `json:"lastScheduledAtMs"`
	StateVersion      int64   `json:"stateVersion"`
	ClaimOwner        *string `json:"claimOwner"`
	ClaimExpiresAtMs  *int64  `json:"claimExpiresAtMs"`
}

// TriggerList is one page of triggers and the cursor of the next.
type TriggerList struct {
	Triggers []Trigger `json:"triggers"`
	Next     string    `json:"next,omitempty"`
}

// NewTriggerList shapes a page of triggers.
func NewTriggerList(list []schedule.TriggerStatus, next string) TriggerList {
	out := TriggerList{Triggers: make([]Trigger, 0, len(list)), Next: next}
	for _, t := range list {
		out.Triggers = append(out.Triggers, Trigger{
			ProjectID: t.ProjectID, ProjectName: t.ProjectName, TriggerID: t.TriggerID, Name: t.Name, Revision: t.Revision,
			Enabled: t.Enabled, Cron: Cron{Expression: t.Cron.Expression, Timezone: t.Cron.Timezone, MisfirePolicy: string(t.Cron.MisfirePolicy)},
			TaskID: t.TaskID, TaskName: t.TaskName, TaskRevision: t.TaskRevision, NextFireAtMs: t.NextFireAtMs,
			LastScheduledAtMs: t.LastScheduledAtMs, StateVersion: t.StateVersion, ClaimOwner: t.ClaimOwner, ClaimExpiresAtMs: t.ClaimExpiresAtMs,
		})
	}
	return out
}
