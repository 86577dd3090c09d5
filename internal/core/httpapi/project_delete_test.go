package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// DELETE /api/v1/projects/{name} refuses an active project 409
// project_not_archived, counts without deleting on ?dryRun=true, deletes
// the archived project, and answers 404 once it is gone; a server that
// cannot delete answers not_over_api.
func TestDeletingAProjectOverTheAPIRefusesAnActiveOneAndDeletesAnArchivedOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := sqlitetest.OpenAt(t, filepath.Join(dir, "ql.db"), func() int64 { return time.Now().UnixMilli() })
	svc := &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	h := authed(t, Config{Definitions: svc, Enabler: *svc, Export: st, Detail: st, Triggers: st,
		ProjectDeleter: st.ProjectDeleter(filepath.Join(dir, "logs"), filepath.Join(dir, "qinglong-secrets.json")),
		Ready:          func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	file := func(status string) string {
		return "project: demo\nstatus: " + status + "\ntasks:\n  - name: a\n    script: \"true\"\n" +
			"triggers:\n  - name: tick\n    task: a\n    cron: \"0 0 1 1 *\"\n    timezone: UTC\n"
	}
	if rec := sendWith(h, "POST", "/api/v1/apply", file("active")); rec.Code != 200 {
		t.Fatalf("apply: %d %s", rec.Code, rec.Body)
	}
	rec := sendWith(h, http.MethodDelete, "/api/v1/projects/demo", "")
	if e := errorOf(t, rec); rec.Code != http.StatusConflict || e.Error.Reason != project.RefusalNotArchived {
		t.Fatalf("delete an active project: %d %s; want 409 %s", rec.Code, rec.Body, project.RefusalNotArchived)
	}
	if rec := sendWith(h, "POST", "/api/v1/apply", file("archived")); rec.Code != 200 {
		t.Fatalf("archive: %d %s", rec.Code, rec.Body)
	}
	rec = sendWith(h, http.MethodDelete, "/api/v1/projects/demo?dryRun=true", "")
	var dry view.ProjectDeletion
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &dry) != nil || !dry.DryRun || dry.Tasks != 1 || dry.Triggers != 1 {
		t.Fatalf("dry run: %d %s; want 1 task and 1 trigger counted", rec.Code, rec.Body)
	}
	if rec := sendWith(h, "GET", "/api/v1/projects/demo", ""); rec.Code != 200 {
		t.Fatalf("the project after a dry run: %d %s; want it still there", rec.Code, rec.Body)
	}
	rec = sendWith(h, http.MethodDelete, "/api/v1/projects/demo", "")
	var done view.ProjectDeletion
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &done) != nil || done.DryRun || done.Tasks != 1 || done.ProjectName != "demo" {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	if rec := sendWith(h, "GET", "/api/v1/projects/demo", ""); rec.Code != http.StatusNotFound {
		t.Fatalf("the project after its deletion: %d %s; want 404", rec.Code, rec.Body)
	}
	if rec := sendWith(h, http.MethodDelete, "/api/v1/projects/demo", ""); rec.Code != http.StatusNotFound {
		t.Fatalf("delete it again: %d %s; want 404", rec.Code, rec.Body)
	}
	none := authed(t, Config{Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	if rec := sendWith(none, http.MethodDelete, "/api/v1/projects/demo", ""); errorOf(t, rec).Error.Reason != RefusalNotOverTheAPI {
		t.Fatalf("a server that cannot delete: %d %s; want %s", rec.Code, rec.Body, RefusalNotOverTheAPI)
	}
}
