package replica

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A cluster replica serves the web console on its API listener: a token
// the admin role created signs in, the overview and triggers show the
// cluster's trigger, the trigger page offers no pause (the runtime role
// cannot pause), and revoking the token ends its session at once.
func TestTheClusterReplicaServesTheConsoleAndRevocationEndsItsSessions(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, clustertest.Triggers("web", 1, clustertest.QuietCron()))
	admin := env.URL(pgstore.RoleAdmin)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "create", "ops", "--scope", "operate")
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	r := startReplica(t, bin, env, "replica-web")
	r.await(t, CodeReady, 30*time.Second)
	base := "http://" + r.addr
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	_, page := get("/signin")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("sign-in page without a CSRF field:\n%s", page)
	}
	resp, err := c.PostForm(base+"/signin", url.Values{"csrf": {m[1]}, "token": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("sign-in: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, page = get("/triggers")
	link := regexp.MustCompile(`href="(/triggers/[0-9a-f-]{36})"`).FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || link == nil {
		t.Fatalf("triggers page: %d without the cluster's trigger:\n%s", resp.StatusCode, page)
	}
	if _, page = get(link[1]); !strings.Contains(page, `id="runnow"`) || strings.Contains(page, `id="pause"`) {
		t.Fatalf("the trigger page on a replica should offer run now and no pause:\n%s", page)
	}
	if code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "revoke", "ops"); code != 0 {
		t.Fatalf("revoke: exit %d %q", code, out)
	}
	if resp, _ = get("/runs"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
		t.Fatalf("after revocation /runs answered %d to %q, want 303 to /signin", resp.StatusCode, resp.Header.Get("Location"))
	}
}
