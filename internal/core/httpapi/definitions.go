package httpapi

import (
	"context"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// definitionsView is GET /api/v1/projects/{name}/definitions's answer: the
// project's definitions file, as `ql export` prints it from the database,
// and what the file cannot say.
type definitionsView struct {
	Project  string       `json:"project"`
	YAML     string       `json:"yaml"`
	Tasks    int          `json:"tasks"`
	Triggers int          `json:"triggers"`
	Notes    []exportNote `json:"notes"`
}

// exportNote is one note of an export: a stable reason and the English
// sentence `ql export` prints after "note: ".
type exportNote struct {
	Reason  string `json:"reason"`
	Message string `json:"message" cmdname:"said"`
}

// projectDefinitions exports a project's current definitions, every task
// and trigger of it. Admin scope, as the console's definitions page: the
// file shows which commands run, as which user, and their public
// environment values and notification URLs.
func (a *api) projectDefinitions(ctx context.Context, r *http.Request) (any, error) {
	if _, err := params(r.URL.Query()); err != nil {
		return nil, err
	}
	if a.Export == nil {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot export definitions; run `ql export PROJECT` where its database is")
	}
	ex, err := apply.ExportProject(ctx, a.Export, r.PathValue("name"), tokenOf(ctx).Projects)
	if err != nil {
		return nil, boundMissing(ctx, r.PathValue("name"), err)
	}
	out := definitionsView{Project: r.PathValue("name"), YAML: string(ex.YAML), Tasks: ex.Tasks, Triggers: ex.Triggers, Notes: make([]exportNote, len(ex.Notes))}
	for i, n := range ex.Notes {
		out.Notes[i] = exportNote(n)
	}
	return out, nil
}
