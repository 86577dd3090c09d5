package server

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// gitIn runs git in dir with an author and main as the first branch.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// A subscription added on the Subscriptions page of a running server and
// pulled with Pull now clones its repository (a bare one on this host)
// into its folder of the server's scripts folder: the Run succeeds, its
// page is where Pull now leads, and the list links it as the last pull.
func TestPullNowClonesTheSubscriptionIntoTheScriptsFolder(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git is needed: %v", err)
		}
		t.Skipf("git is absent: %v", err)
	}
	root := t.TempDir()
	bare, work := filepath.Join(root, "Owner", "Scripts.git"), filepath.Join(root, "work")
	if err := os.MkdirAll(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, bare, "init", "--bare", "-q")
	gitIn(t, root, "clone", "-q", bare, work)
	if err := os.WriteFile(filepath.Join(work, "jd_a.js"), []byte("// cron: 0 8 * * *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, work, "add", "jd_a.js")
	gitIn(t, work, "commit", "-q", "-m", "first")
	gitIn(t, work, "push", "-q", "origin", "HEAD:main")

	site, c, csrf := startSignedInConsoleSite(t, apitoken.Admin)
	form := url.Values{"csrf": {csrf}, "project": {"jd"}, "url": {"file://" + bare}, "branch": {"main"}, "cron": {"0 3 * * *"}, "timezone": {"Asia/Shanghai"}, "enabled": {"1"}}
	if resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/subscriptions/new?lang=en", form); resp.StatusCode != http.StatusOK || !strings.Contains(page, "repo-owner-scripts-main") {
		t.Fatalf("the add: %d\n%s", resp.StatusCode, page)
	}
	resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/subscriptions/pull", url.Values{"csrf": {csrf}, "name": {"repo-owner-scripts-main"}})
	to := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(to, "/runs/") {
		t.Fatalf("pull now: %d to %q, want the Run's page", resp.StatusCode, to)
	}
	runID := strings.TrimPrefix(to, "/runs/")
	var state run.State
	waitFor(t, "the pull's Run to finish", time.Minute, func() bool {
		d, err := site.srv.store.RunGet(t.Context(), runID)
		state = d.Run.State
		return err == nil && d.Run.State.Finished()
	})
	if state != run.Succeeded {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+to+"?lang=en", nil)
		t.Fatalf("the pull's Run %s:\n%s", state, page)
	}
	got, err := os.ReadFile(filepath.Join(site.srv.cfg.ScriptsDir, "Owner_Scripts_main", "jd_a.js"))
	if err != nil || string(got) != "// cron: 0 8 * * *\n" {
		t.Fatalf("the clone's jd_a.js: %q %v", got, err)
	}
	if resp, page := httpcall.Form(t, c, http.MethodGet, site.base+to+"?lang=en", nil); resp.StatusCode != http.StatusOK || !strings.Contains(page, "repo-owner-scripts-main") {
		t.Errorf("the Run's page: %d\n%s", resp.StatusCode, page)
	}
	if _, page := httpcall.Form(t, c, http.MethodGet, site.base+"/subscriptions?lang=en", nil); !strings.Contains(page, `<a href="`+to+`" class="sub-last-run"><span class="state state-succeeded">`) {
		t.Errorf("the list does not show the pull as its last:\n%s", page)
	}
}
