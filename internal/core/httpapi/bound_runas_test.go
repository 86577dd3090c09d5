package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A token bound to project alpha applies alpha's file, but one whose task
// names a runAs is refused 403 run_as_needs_every_project, in a dry run
// too, naming the task and the account and publishing nothing: the
// account a command runs as (root, the data directory's owner) reads
// every project's secrets and the database, so choosing it is no one
// project's. A token of every project publishes the same file.
func TestABoundTokenCannotPublishATaskThatRunsAsAnotherAccount(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	bound, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "alpha-admin", apitoken.Admin, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	svc := &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	h := NewHandler(Config{Definitions: svc, DryRuns: &DryRuns{Service: *svc, Reader: st}, Tokens: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	const plain = "project: alpha\ntasks:\n  - name: report\n    script: echo report\n"
	const rooted = "project: alpha\ntasks:\n  - name: peek\n    runAs: {user: root}\n    script: cat /var/lib/qinglong/qinglong-secrets.json\n"
	apply := func(token, target, file string) probe {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(file))
		req.Host = "localhost"
		req.Header.Set("Content-Type", "application/yaml")
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var b struct {
			Error struct{ Message, Reason string }
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &b)
		return probe{status: rec.Code, message: b.Error.Message, reason: b.Error.Reason}
	}
	if p := apply(bound, "/api/v1/apply", plain); p.status != 200 {
		t.Fatalf("alpha's file without runAs, with alpha's token: %d %s %q; want it published", p.status, p.reason, p.message)
	}
	for _, target := range []string{"/api/v1/apply?dryRun=true", "/api/v1/apply"} {
		p := apply(bound, target, rooted)
		if p.status != 403 || p.reason != string(apitoken.RefusalRunAsNeedsEveryProject) ||
			!strings.Contains(p.message, `"peek"`) || !strings.Contains(p.message, "runAs root") || !strings.Contains(p.message, "alpha-admin") {
			t.Errorf("%s of a task that runs as root, with alpha's token: %d %s %q; want 403 %s naming the token, the task and the account",
				target, p.status, p.reason, p.message, apitoken.RefusalRunAsNeedsEveryProject)
		}
	}
	alpha, err := st.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.TasksByName(t.Context(), alpha.ID, []string{"peek"}); err != nil || len(got) != 0 {
		t.Errorf("tasks named peek after the refusals: %v %v; want none published", got, err)
	}
	if p := apply(tokens[apitoken.Admin], "/api/v1/apply", rooted); p.status != 200 {
		t.Errorf("the same file with a token of every project: %d %s %q; want it published", p.status, p.reason, p.message)
	}
}
