package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A subscription's pull task published with the token in its script's
// URL, as pull tasks were written before, takes the form that keeps it
// off git's command line (the URL without it in the script, the user and
// token in the task's env) when its ql repo line is imported again: the
// task gets one new revision, and importing the same crontab once more
// publishes nothing new.
func TestAPullTaskWithATokenInItsScriptTakesTheNewFormOnceThenNothingNew(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	const line = "33 8 * * * ql repo https://bot:ghp_SECRET7@example.com/o/scripts.git \"jd_\"\n"
	old := "project: panel\ntasks:\n  - name: repo-o-scripts\n    labels: {subscription/url: \"https://bot:ghp_SECRET7@example.com/o/scripts.git\"}\n" +
		"    script: git clone --depth 1 -- https://bot:ghp_SECRET7@example.com/o/scripts.git \"$QL_SCRIPTS_DIR\"/o_scripts\n"
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/apply?lang=en", url.Values{"csrf": {csrf}, "yaml": {old}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("applying the earlier pull task: %d\n%s", resp.StatusCode, defErrors(page))
	}
	revision := func() (int64, string, map[string]string) {
		t.Helper()
		d, err := site.srv.store.ProjectDefinitions(t.Context(), "panel", 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range d.Tasks {
			if tk.Spec.Name == "repo-o-scripts" {
				env := map[string]string{}
				for _, v := range tk.Spec.Command.Env {
					env[v.Name] = v.Value
				}
				return tk.Revision, tk.Spec.Command.Script, env
			}
		}
		t.Fatalf("no task repo-o-scripts in %+v", d.Tasks)
		return 0, "", nil
	}
	before, _, _ := revision()
	_, preview := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "panel", line))
	if resp, page := confirmPreview(t, c, site.base, preview); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="def-applied"`) {
		t.Fatalf("the import's confirm: %d:\n%s", resp.StatusCode, page)
	}
	rev, script, env := revision()
	if rev != before+1 || strings.Contains(script, "ghp_SECRET7") || !strings.Contains(script, "https://example.com/o/scripts.git") ||
		env[crontab.CredentialUserVariable] != "bot" || env[crontab.CredentialPasswordVariable] != "ghp_SECRET7" {
		t.Fatalf("after the import: revision %d (was %d), script\n%s\nenv %v; want one new revision, the token in the env, not in the script", rev, before, script, env)
	}
	_, again := httpcall.Form(t, c, http.MethodPost, site.base+"/definitions/import/preview?lang=en", importForm(csrf, "panel", line))
	if strings.Contains(again, "change-created") || strings.Contains(again, "change-updated") || !strings.Contains(again, "importing it again publishes nothing new") {
		t.Fatalf("the second import's preview, want nothing new:\n%s", again)
	}
	if rev2, _, _ := revision(); rev2 != rev {
		t.Errorf("the task is at revision %d after previewing the same crontab, was %d", rev2, rev)
	}
}
