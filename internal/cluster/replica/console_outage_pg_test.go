package replica

import (
	"context"
	"net/http"
	"net/url"
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
	c, get := consoleBrowser(t, base)
	resp := consoleSignIn(t, c, get, base, url.Values{"token": {secret}})
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
	if resp, page := get("/runs"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "Not available right now") {
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
