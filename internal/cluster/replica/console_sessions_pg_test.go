package replica

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A console session is stored in the database: made on one replica, it is
// accepted by another with the same CSRF token, survives the first
// replica's restart, and a sign-out on either ends it on both.
func TestAConsoleSessionWorksOnEveryReplicaAndSurvivesARestart(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	admin := env.URL(pgstore.RoleAdmin)
	code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + admin}, "tokens", "create", "ops", "--scope", "operate")
	if code != 0 {
		t.Fatalf("tokens create: exit %d %q", code, out)
	}
	secret := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	a, b := startReplica(t, bin, env, "replica-a"), startReplica(t, bin, env, "replica-b")
	a.await(t, CodeReady, 30*time.Second)
	b.await(t, CodeReady, 30*time.Second)
	baseA := "http://" + a.addr
	// The cookie jar keys cookies by host, not port: both replicas, on
	// 127.0.0.1, are sent the session cookie, as behind one load balancer.
	c, getA := consoleBrowser(t, baseA)
	if resp := consoleSignIn(t, c, getA, baseA, url.Values{"token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in on replica a: %d", resp.StatusCode)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	pageCSRF := func(base, after string) string {
		t.Helper()
		resp, err := c.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		m := csrf.FindStringSubmatch(body)
		if resp.StatusCode != http.StatusOK || m == nil {
			t.Fatalf("%s: the overview answered %d to %q, want 200 signed in", after, resp.StatusCode, resp.Header.Get("Location"))
		}
		return m[1]
	}
	onA := pageCSRF(baseA, "on replica a")
	if onB := pageCSRF("http://"+b.addr, "on replica b"); onB != onA {
		t.Fatalf("replica b shows the CSRF token %q, replica a %q: want the session's one", onB, onA)
	}
	a.signal(t, syscall.SIGTERM, 30*time.Second)
	a = startReplica(t, bin, env, "replica-a")
	a.await(t, CodeReady, 30*time.Second)
	baseA = "http://" + a.addr
	pageCSRF(baseA, "after replica a's restart")

	// A copy of the cookie, taken before the sign-out, as someone who
	// learnt it would hold.
	copied := c.Jar.Cookies(&url.URL{Scheme: "http", Host: a.addr})
	resp, err := c.PostForm("http://"+b.addr+"/signout", url.Values{"csrf": {onA}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin?signedout" {
		t.Fatalf("sign-out on replica b: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, err := http.NewRequest(http.MethodGet, baseA+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range copied {
		req.AddCookie(ck)
	}
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(copied) == 0 || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
		t.Fatalf("the signed-out session's cookie (%d cookies) on replica a: %d to %q, want 303 to /signin", len(copied), resp.StatusCode, resp.Header.Get("Location"))
	}
}
