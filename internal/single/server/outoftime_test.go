package server

import (
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// seedOutbox writes n delivered notifications of the site's project, in
// SQL, with a dead one before and after them: a listing of the project's
// dead notifications walks all n for its page (the state's index and the
// project's each hold all of them).
func seedOutbox(t *testing.T, site *consoleSite, n int) {
	t.Helper()
	db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
		INSERT INTO notification_outbox (id, project_id, rule_key, subject, event, channel_json, payload_json, state, next_attempt_at_ms, created_at_ms, updated_at_ms)
		SELECT printf('00000000-0000-7000-8000-%012x', i), ?1, 'seeded', 'seeded:' || i, 'run.failed', '{}', '{}',
			CASE WHEN i IN (0, ?2) THEN 'dead' ELSE 'delivered' END, 0, 0, 0
		FROM n`, site.projectID, n+1); err != nil {
		t.Fatal(err)
	}
}

// A console page or an API listing whose database read runs past the
// request's time limit has that read cancelled and is answered 504 (the
// console's "Took too long" page, the API's timeout error) within the
// server's write timeout, and the server logs one warning per request
// naming its route and how long it took.
func TestARequestOutOfTimeIsAnsweredAndLoggedWithItsRoute(t *testing.T) {
	t.Parallel()
	const limit = 100 * time.Millisecond
	var logs lockedBuffer
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, "true",
		func(c *Config) {
			c.RequestTimeout = limit
			c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		})
	seedOutbox(t, site, 400_000)
	status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/notifications?state=dead&project="+site.projectID, site.tokens[apitoken.Read], nil)
	var answer struct{ Error struct{ Code string } }
	if err := json.Unmarshal(body, &answer); err != nil || status != http.StatusGatewayTimeout || answer.Error.Code != "timeout" {
		t.Fatalf("the API's listing past its %s: %d %s; want 504 timeout", limit, status, body)
	}
	c := consoleClient(t)
	signInWithin(t, site, c, site.tokens[apitoken.Read])
	resp, page := httpcall.Form(t, c, http.MethodGet, site.base+"/notifications?lang=en&state=dead&project=shop", nil)
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(page, "Took too long") {
		t.Fatalf("the console's notifications page past its %s: %d; want 504 Took too long:\n%s", limit, resp.StatusCode, page)
	}
	lines := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) != nil {
			continue
		}
		// Only the listings' lines: on a loaded machine another request
		// (the sign-in) may run out of so short a limit too.
		route, _ := rec["route"].(string)
		if code, _ := rec["code"].(string); (code == httpapi.CodeRequestOutOfTime || code == console.CodeRequestOutOfTime) && strings.HasSuffix(route, "/notifications") {
			if lines[code] != nil {
				t.Errorf("two %s lines; want one per request:\n%s", code, logs.String())
			}
			lines[code] = rec
		}
	}
	for code, route := range map[string]string{httpapi.CodeRequestOutOfTime: "/api/v1/notifications", console.CodeRequestOutOfTime: "/notifications"} {
		rec := lines[code]
		elapsed, _ := rec["elapsed_ms"].(float64)
		if rec == nil || rec["level"] != "WARN" || !strings.HasSuffix(rec["route"].(string), route) || rec["method"] != "GET" ||
			elapsed < float64(limit.Milliseconds()) || elapsed >= float64(httpserve.MaxHandlerTime.Milliseconds()) || rec["limit_ms"] != float64(limit.Milliseconds()) {
			t.Errorf("%s: %v; want one warning naming GET %s, its %d ms limit and how long it took:\n%s", code, rec, route, limit.Milliseconds(), logs.String())
		}
	}
}

// signInWithin signs c in on a site whose requests have a very short time
// limit: on a loaded machine the sign-in's own reads may run out of it
// (503, the store not answering in time), which is not what the tests of
// that limit are about, so it is tried again, a bounded number of times.
func signInWithin(t *testing.T, site *consoleSite, c *http.Client, token string) {
	t.Helper()
	for try := 1; ; try++ {
		csrf, _ := site.signinForm(t, c)
		resp, _ := httpcall.Form(t, c, http.MethodPost, site.base+"/signin", url.Values{"csrf": {csrf}, "token": {token}})
		switch {
		case resp.StatusCode == http.StatusSeeOther && resp.Header.Get("Location") == "/":
			return
		case resp.StatusCode != http.StatusServiceUnavailable || try == 20:
			t.Fatalf("sign-in (try %d) answered %d to %q, want 303 to /", try, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}
