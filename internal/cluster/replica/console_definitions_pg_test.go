package replica

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A replica runs as the runtime role, which reads the catalog but may not
// publish: its Definitions page shows a project's file read-only, as `ql
// export` prints it, saying in the page's language how to apply an edited
// copy, and offers no preview or apply.
func TestAReplicasDefinitionsPageShowsTheProjectReadOnlyAndSaysWhereToApply(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("web", 1, clustertest.QuietCron()))
	secret := env.Token(t, "owner", apitoken.Admin)
	r := startReplica(t, bin, env, "replica-defs")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, map[string][]string{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	for _, tc := range []struct{ lang, says string }{
		{"en", `ql apply -f FILE <span class="nowrap">--api-url</span> URL`},
		{"zh", "下面的文件仅供查看和复制"},
	} {
		resp, page := get("/definitions?project=web&lang=" + tc.lang)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s definitions page: %d\n%s", tc.lang, resp.StatusCode, page)
		}
		for _, want := range []string{`<textarea id="def-yaml" rows="24" readonly`, "project: web\n", "name: t00000", `id="def-nopublish"`, tc.says, "admin"} {
			if !strings.Contains(page, want) {
				t.Errorf("the %s definitions page on a replica lacks %q:\n%s", tc.lang, want, page)
			}
		}
		for _, unwanted := range []string{`action="/definitions/preview"`, `id="def-preview-btn"`, `id="def-confirm"`, `name="yaml"`} {
			if strings.Contains(page, unwanted) {
				t.Errorf("the %s definitions page on a replica, which cannot publish, offers %q", tc.lang, unwanted)
			}
		}
	}
}

// A replica's project pickers (the runs filter, the definitions page)
// offer every project the runtime role reads, one without a trigger too.
func TestAReplicasProjectPickersOfferAProjectWithoutTriggers(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("web", 1, clustertest.QuietCron()), "project: quiet\ntasks:\n  - name: job\n    script: echo hi\n")
	secret := env.Token(t, "owner", apitoken.Admin)
	r := startReplica(t, bin, env, "replica-picker")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, map[string][]string{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	for path, want := range map[string]string{"/definitions": `<option value="quiet">`, "/runs": `<option value="quiet">quiet</option>`, "/runs?project=quiet": `selected>quiet</option>`} {
		if resp, page := get(path); resp.StatusCode != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("%s: %d, without the project that has no trigger (%s):\n%s", path, resp.StatusCode, want, page)
		}
	}
}
