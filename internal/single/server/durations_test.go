package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A task's timeout in days, alone or followed by Go's units, is taken by
// the API's apply and by the console's New task form as a token's expiry
// is; one that does not read is refused by each with what is accepted.
func TestATaskTimeoutInDaysIsTakenByTheAPIAndTheNewTaskForm(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	file := "project: days\ntasks:\n  - name: long\n    script: echo\n    timeout: %s\ntriggers:\n  - name: long\n    task: long\n    cron: '0 3 * * *'\n    timezone: UTC\n"
	site.applyOverAPI(t, []byte(strings.Replace(file, "%s", "1d12h", 1)), "days")
	if d, err := site.srv.store.ProjectDefinitions(t.Context(), "days", 10); err != nil || len(d.Tasks) != 1 || d.Tasks[0].Spec.Command.TimeoutMs != (36*time.Hour).Milliseconds() {
		t.Fatalf("after the API's apply of timeout 1d12h: %+v, %v; want a timeout of 36h", d, err)
	}
	st, body, _ := httpcall.Bearer(t, http.MethodPost, site.base+"/api/v1/apply", site.tokens[apitoken.Admin], []byte(strings.Replace(file, "%s", "1.5d", 1)))
	if st != http.StatusBadRequest || !strings.Contains(string(body), `\"1.5d\" is not a duration from 1ms to 365d: `+validate.DurationForms) {
		t.Errorf("the API's apply of timeout 1.5d: %d %s; want 400 saying what is accepted", st, body)
	}

	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Admin])
	form := newTaskForm(csrf, "backup", "weekly", "echo")
	form.Set("timeout", "2d")
	resp, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/new?lang=en", form)
	if resp.StatusCode != http.StatusOK || !strings.Contains(preview, `id="def-preview"`) {
		t.Fatalf("the New task form with timeout 2d: %d, want its preview:\n%s", resp.StatusCode, preview)
	}
	applyPreviewed(t, c, site.base, csrf, preview)
	if d, err := site.srv.store.ProjectDefinitions(t.Context(), "backup", 10); err != nil || len(d.Tasks) != 1 || d.Tasks[0].Spec.Command.TimeoutMs != (48*time.Hour).Milliseconds() {
		t.Fatalf("after the New task form's timeout 2d: %+v, %v; want a timeout of 48h", d, err)
	}
}
