package cli

import (
	"context"
	"net/url"

	"github.com/qinglong/qinglong/internal/core/apply"
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
