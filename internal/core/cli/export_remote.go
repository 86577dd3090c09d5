package cli

import (
	"context"
	"net/url"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// ExportProject asks the server for the project's export (GET
// /api/v1/projects/{name}/definitions), which it makes from its database
// as `ql export` does from one: its yaml is printed as it came.
func (c *apiClient) ExportProject(ctx context.Context, name string) (apply.Exported, error) {
	var a struct {
		YAML     string `json:"yaml"`
		Tasks    int    `json:"tasks"`
		Triggers int    `json:"triggers"`
		Notes    []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"notes"`
	}
	if err := c.get(ctx, "/api/v1/projects/"+url.PathEscape(name)+"/definitions", nil, &a); err != nil {
		return apply.Exported{}, err
	}
	out := apply.Exported{YAML: []byte(a.YAML), Tasks: a.Tasks, Triggers: a.Triggers}
	for _, n := range a.Notes {
		out.Notes = append(out.Notes, apply.ExportNote(n))
	}
	return out, nil
}

// ProjectPauseRead asks the server for the pause state of the project
// named name (GET /api/v1/projects/{name}, read scope), as the database
// gives it: what `export PROJECT` notes about the pauses a file cannot
// carry. A server that cannot read pauses answers none, read as unpaused.
func (c *apiClient) ProjectPauseRead(ctx context.Context, name string) (schedule.ProjectPauseState, error) {
	var p view.Project
	if err := c.get(ctx, "/api/v1/projects/"+url.PathEscape(name), nil, &p); err != nil {
		return schedule.ProjectPauseState{}, err
	}
	st := schedule.ProjectPauseState{ProjectID: p.ID, ProjectName: p.Name}
	if p.Pause != nil {
		st.Paused, st.Note, st.Actor, st.AtMs = p.Pause.Paused, p.Pause.Note, p.Pause.Actor, p.Pause.AtMs
	}
	return st, nil
}

// ProjectID asks the server for the id of the project named name (GET
// /api/v1/projects/{name}, read scope): NotFound when it has none.
func (c *apiClient) ProjectID(ctx context.Context, name string) (string, error) {
	var p struct {
		ID string `json:"id"`
	}
	if err := c.get(ctx, "/api/v1/projects/"+url.PathEscape(name), nil, &p); err != nil {
		return "", err
	}
	return p.ID, nil
}
