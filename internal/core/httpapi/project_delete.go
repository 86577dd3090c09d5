package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

// projectDelete deletes an archived project ({name} its name or id) with
// everything of it, as `ql projects delete --yes` does, or with
// ?dryRun=true counts what would go: a refusal the deletion would meet is
// then the answer's error. Logged as project.deleted with who asked.
func (a *api) projectDelete(ctx context.Context, r *http.Request) (any, error) {
	q, err := params(r.URL.Query(), "dryRun")
	if err != nil {
		return nil, err
	}
	dry, err := boolean("dryRun", q["dryRun"], false)
	if err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	if err := validate.Name("project", name); err != nil {
		return nil, err
	}
	if a.ProjectDeleter == nil {
		return nil, qlerror.New(qlerror.FailedPrecondition, "this server cannot delete projects over the API: on the cluster only the maintenance role deletes Runs; "+
			"use `ql projects delete` with that role's URL ($QL_DATABASE_MAINTENANCE_URL)").Because(RefusalNotOverTheAPI)
	}
	res, err := a.ProjectDeleter.ProjectDelete(ctx, project.DeleteRequest{Project: name, DryRun: dry, Actor: principalOf(ctx).actor()})
	if err != nil {
		return nil, err
	}
	if res.WouldRefuse != nil {
		return nil, res.WouldRefuse
	}
	if !dry {
		c := res.Deleted
		a.Log.Info("project deleted", slog.String("code", project.CodeDeleted), slog.String("project", res.ProjectName), slog.String("id", res.ProjectID),
			slog.Int64("runs", c.Runs), slog.Int64("tasks", c.Tasks), slog.Int64("triggers", c.Triggers), slog.Int("logs_kept", len(res.Kept)),
			slog.Int("secrets", len(res.Secrets)), slog.String("actor", principalOf(ctx).actor()))
	}
	return view.NewProjectDeletion(res), nil
}
