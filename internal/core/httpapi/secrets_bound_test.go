package httpapi

import (
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/process"
)

// An admin token bound to project alpha sets and deletes the secrets of
// alpha's namespace (alpha/NAME), and is refused 403
// project_not_in_scope another project's (naming that project, which it
// named itself) and a global secret, which is no one project's; the file
// keeps only what it was allowed to write.
func TestABoundTokenEditsItsProjectsSecretsOnly(t *testing.T) {
	t.Parallel()
	st, _ := tokenStore(t)
	bound, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "alpha-ci", apitoken.Admin, 0, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	file := &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	h := NewHandler(Config{Tokens: st, Export: st, Secrets: file, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	const value = `{"value": "some-value"}`
	if status, got := call(t, h, http.MethodPut, "/api/v1/secrets/alpha%2Fnew", bound, value); status != 200 || !strings.Contains(got, `"name":"alpha/new"`) {
		t.Errorf("alpha's token setting alpha/new: %d %s; want it set", status, got)
	}
	for _, c := range []struct{ method, target, body, want string }{
		{http.MethodPut, "/api/v1/secrets/beta%2Fnew", value, "may not act on project beta"},
		{http.MethodDelete, "/api/v1/secrets/beta%2Fnew", "", "may not act on project beta"},
		{http.MethodPut, "/api/v1/secrets/shared", value, "which is no one project's"},
		{http.MethodDelete, "/api/v1/secrets/shared", "", "which is no one project's"},
		{http.MethodGet, "/api/v1/secrets", "", "which is no one project's"},
	} {
		status, got := call(t, h, c.method, c.target, bound, c.body)
		if status != 403 || !strings.Contains(got, `"reason":"project_not_in_scope"`) || !strings.Contains(got, c.want) {
			t.Errorf("alpha's token: %s %s: %d %s; want 403 project_not_in_scope saying %q", c.method, c.target, status, got, c.want)
		}
	}
	if got, err := file.Resolve([]string{"alpha/new"}); err != nil || got["alpha/new"] != "some-value" {
		t.Fatalf("the file resolves %v, %v; want alpha/new", got, err)
	}
	if status, got := call(t, h, http.MethodDelete, "/api/v1/secrets/alpha%2Fnew", bound, ""); status != 200 || !strings.Contains(got, `"deleted":true`) {
		t.Errorf("alpha's token deleting alpha/new: %d %s; want it deleted", status, got)
	}
}
