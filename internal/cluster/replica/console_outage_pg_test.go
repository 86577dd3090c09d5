package replica

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A console request while the replica cannot reach its database answers
// the console's 503 page and keeps the session: once the database is back,
// the same browser is still signed in.
func TestAConsoleRequestDuringADatabaseOutageAnswers503AndKeepsTheSession(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	secret := env.Token(t, "outage", apitoken.Read)
	r := startReplica(t, bin, env, "replica-outage")
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
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}

	// Holding the migration history keeps the fresh activation waiting in
	// readiness, so the replica stays without its database until released.
	hold, err := env.Super.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.Background()) // released below; no-op then
	if _, err := hold.Exec(context.Background(), `LOCK TABLE qinglong.schema_migrations IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	terminateBackends(t, env, "replica-outage")
	eventually(t, 10*time.Second, "the replica to report the lost database", func() bool {
		code, reason := r.readyz(t)
		return code == http.StatusServiceUnavailable && reason == ReasonDatabaseUnavailable
	})
	if resp, page = get("/runs"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "Not available right now") {
		t.Fatalf("/runs during the outage: %d to %q, want the console's 503 page:\n%s", resp.StatusCode, resp.Header.Get("Location"), page)
	}
	if err := hold.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "the replica ready again", func() bool {
		code, _ := r.readyz(t)
		return code == http.StatusOK
	})
	if resp, _ = get("/runs"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/runs after the outage: %d to %q, want 200 in the same session", resp.StatusCode, resp.Header.Get("Location"))
	}
}
