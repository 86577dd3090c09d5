package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/authlimit"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

const someID = "0190a4f2-0000-7000-8000-000000000000"

type probe struct {
	status                int
	code, message, reason string
	header                http.Header
}

func send(t *testing.T, h http.Handler, method, target, host, token, body string) probe {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	req.Host = host
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var b struct {
		Error struct{ Code, Message, Reason string }
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &b)
	return probe{status: rec.Code, code: b.Error.Code, message: b.Error.Message, reason: b.Error.Reason, header: rec.Header()}
}

func walkHandler(t testing.TB, cfg Config) (*Handler, map[apitoken.Scope]string) {
	t.Helper()
	st, tokens := tokenStore(t)
	f := fakeReaders{}
	cfg.Runs, cfg.Triggers, cfg.Detail, cfg.Tokens = f, f, f, st
	cfg.Ready = func() (bool, string) { return true, "" }
	cfg.Log = slog.New(slog.DiscardHandler)
	return NewHandler(cfg), tokens
}

// Every route of the table, asked with every scope's token, is allowed
// exactly when the scope covers the route's (403 naming the scope
// otherwise; a route the server itself may not serve, such as apply on a
// server whose database role may not publish, is 403 too, for every
// scope, saying so); without a token, or with a malformed, unknown or
// revoked one, every route but the probes is 401. And the mux serves
// exactly the table's patterns.
func TestRouteTableIsEnforcedForEveryRouteAndScope(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{Limits: Limits{FailedAuthBurst: 1000}})
	unknown, _, err := apitoken.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range routes {
		target := strings.ReplaceAll(rt.pattern, "{id}", someID)
		// The walk's server has no definitions to publish to: an apply is
		// refused as that to every token, never as a scope to ask for.
		refusal := "needs a token of scope " + string(rt.scope)
		if rt.pattern == "/api/v1/apply" {
			refusal = "this server cannot publish definitions"
		}
		for _, s := range apitoken.Scopes {
			p := send(t, h, rt.method, target, "localhost", tokens[s], "")
			allowed := rt.scope == public || s.Allows(rt.scope)
			switch {
			case allowed && (p.status == 401 || strings.Contains(p.message, "needs a token of scope")):
				t.Errorf("%s %s with a %s token: %d %s %q; want it allowed", rt.method, target, s, p.status, p.code, p.message)
			case !allowed && (p.status != 403 || p.code != "permission_denied" || !strings.Contains(p.message, refusal)):
				t.Errorf("%s %s with a %s token: %d %s %q; want 403 permission_denied saying %q", rt.method, target, s, p.status, p.code, p.message, refusal)
			}
		}
		for what, tok := range map[string]string{"no token": "", "a malformed token": "qlt_short", "an unknown token": unknown, "a basic credential": "x"} {
			p := send(t, h, rt.method, target, "localhost", tok, "")
			if what == "a basic credential" {
				req := httptest.NewRequest(rt.method, target, nil)
				req.Host = "localhost"
				req.SetBasicAuth("admin", "admin")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				p.status = rec.Code
			}
			switch {
			case rt.scope == public && p.status != 200:
				t.Errorf("%s %s with %s: %d; the probes need no token", rt.method, target, what, p.status)
			case rt.scope != public && p.status != 401:
				t.Errorf("%s %s with %s: %d %s; want 401", rt.method, target, what, p.status, p.code)
			}
		}
	}
	want := []string{"/"}
	for _, rt := range routes {
		if !slices.Contains(want, rt.pattern) {
			want = append(want, rt.pattern)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(h.patterns))
	if !slices.Equal(got, want) {
		t.Fatalf("the mux serves %v, the route table %v: every pattern on the mux needs a table entry", got, want)
	}
}

func TestAnExpiredOrRevokedTokenIsRefused(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	f := fakeReaders{}
	now := int64(0)
	h := NewHandler(Config{Runs: f, Triggers: f, Detail: f, Tokens: st, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler),
		NowMs: func() int64 { return now }})
	secret, tok, err := apitoken.Create(t.Context(), st, "tester", "0190a4f2-0000-7000-8000-0000000000aa", "short", apitoken.Read, 3_600_000_000_000)
	if err != nil {
		t.Fatal(err)
	}
	now = tok.CreatedAtMs
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", secret, ""); p.status != 200 {
		t.Fatalf("a live token: %d %s", p.status, p.code)
	}
	now = *tok.ExpiresAtMs
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", secret, ""); p.status != 401 || p.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("an expired token: %d %s", p.status, p.code)
	}
	if err := st.TokenRevoke(t.Context(), "tok-read", "tester"); err != nil {
		t.Fatal(err)
	}
	now = tok.CreatedAtMs
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", tokens[apitoken.Read], ""); p.status != 401 {
		t.Fatalf("a revoked token: %d %s", p.status, p.code)
	}
	used, err := st.TokenByDigest(t.Context(), apitoken.Digest(secret))
	if err != nil || used.LastUsedAtMs == nil || *used.LastUsedAtMs != tok.CreatedAtMs {
		t.Fatalf("last use of the token used once: %+v %v", used, err)
	}
}

// The Bearer scheme's name is case-insensitive (RFC 7235) and one or more
// spaces may follow it: a client writing "bearer" is let in, and another
// scheme still is not.
func TestTheBearerSchemeIsReadWhateverItsCaseAndSpacing(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{Limits: Limits{FailedAuthBurst: 1000}})
	token := tokens[apitoken.Read]
	for header, want := range map[string]int{
		"bearer " + token:   200,
		"BEARER " + token:   200,
		"Bearer   " + token: 200,
		"Basic " + token:    401,
		"Bearer" + token:    401,
	} {
		req := httptest.NewRequest("GET", "/api/v1/runs", nil)
		req.Host = "localhost"
		req.Header.Set("Authorization", header)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Authorization %q: %d; want %d", strings.Replace(header, token, "TOKEN", 1), rec.Code, want)
		}
	}
}

// A browser page whose DNS name was rebound to this server's address
// sends its own name as Host: the API refuses it, the probes still answer
// (orchestrators probe by address).
func TestDNSRebindingHostIsRejected(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{AllowedHosts: DefaultAllowedHosts("10.0.0.5:8080", []string{"ql.example.com"})})
	for _, host := range []string{"evil.example", "evil.example:8080", "10.0.0.6:8080"} {
		if p := send(t, h, "GET", "/api/v1/runs", host, tokens[apitoken.Admin], ""); p.status != 421 || p.code != "host_not_allowed" {
			t.Errorf("Host %s: %d %s; want 421 host_not_allowed", host, p.status, p.code)
		}
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1", "[::1]:8080", "10.0.0.5:8080", "QL.example.com"} {
		if p := send(t, h, "GET", "/api/v1/runs", host, tokens[apitoken.Admin], ""); p.status != 200 {
			t.Errorf("Host %s: %d %s; want it allowed", host, p.status, p.code)
		}
	}
	if p := send(t, h, "GET", "/readyz", "evil.example", "", ""); p.status != 200 {
		t.Errorf("readyz with a foreign Host: %d", p.status)
	}
}

// The Host check drops the header's port, so an --allowed-hosts entry
// with a port, a scheme or brackets could never match: it is refused,
// naming the host to write instead; names and IP addresses pass.
func TestAllowedHostsRefuseAPortOrAScheme(t *testing.T) {
	t.Parallel()
	for entry, write := range map[string]string{
		"myhost:18299":            "write myhost",
		"http://ql.example.com":   "write ql.example.com",
		"https://ql.example.com/": "write ql.example.com",
		"[::1]:8080":              "write ::1",
		"[fd00::5]":               "write fd00::5",
		"ql.example.com/api":      "write a name such as ql.example.com",
	} {
		err := CheckAllowedHosts([]string{"ok.example.com", entry})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", entry)) || !strings.Contains(err.Error(), "without port or scheme") || !strings.HasSuffix(err.Error(), write) {
			t.Errorf("--allowed-hosts %s: %v; want it refused ending %q", entry, err, write)
		}
	}
	if err := CheckAllowedHosts([]string{"ql.example.com", "QL-2.example.com", "10.0.0.5", "fd00::5", "localhost"}); err != nil {
		t.Errorf("host names and IP addresses: %v; want them taken", err)
	}
}

// Only failed authentications are throttled: from an address that failed
// too often (every local user shares 127.0.0.1, every client of an
// untrusted proxy its address) a valid token is still served, /metrics
// included, and every token that fails is refused with 429 without the
// verdict 401 would give (unknown, revoked, malformed, none), counted as
// throttled, its message not telling anyone to check a valid token.
func TestAThrottledAddressIsServedItsValidTokensAndRefusedTheRestWithoutAVerdict(t *testing.T) {
	t.Parallel()
	scraped := 0
	h, tokens := walkHandler(t, Config{Limits: Limits{FailedAuth: rate.Every(1 << 40), FailedAuthBurst: 3},
		Metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { scraped++ })})
	for i := range 3 {
		if p := send(t, h, "GET", "/api/v1/runs", "localhost", "qlt_nope", ""); p.status != 401 {
			t.Fatalf("failure %d: %d", i, p.status)
		}
	}
	for range 3 {
		if p := send(t, h, "GET", "/api/v1/runs", "localhost", tokens[apitoken.Read], ""); p.status != 200 {
			t.Fatalf("a valid token from the throttled address: %d %s %s; want it served", p.status, p.code, p.message)
		}
		if p := send(t, h, "GET", "/metrics", "localhost", tokens[apitoken.Read], ""); p.status != 200 || p.code != "" {
			t.Fatalf("a scrape of /metrics with a valid token from the throttled address: %d %s; want it served", p.status, p.code)
		}
	}
	if scraped != 3 {
		t.Fatalf("%d scrapes reached the metrics, want 3", scraped)
	}
	unknown, _, err := apitoken.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.g.tokens.(interface {
		TokenRevoke(ctx context.Context, name, actor string) error
	}).TokenRevoke(t.Context(), "tok-operate", "tester"); err != nil {
		t.Fatal(err)
	}
	for what, token := range map[string]string{"an unknown token": unknown, "a revoked token": tokens[apitoken.Operate], "a malformed token": "qlt_nope", "no token": ""} {
		p := send(t, h, "GET", "/api/v1/runs", "localhost", token, "")
		if p.status != 429 || p.code != "rate_limited" || p.header.Get("Retry-After") != "60" {
			t.Errorf("%s from the throttled address: %d %s Retry-After %q; want 429 rate_limited 60", what, p.status, p.code, p.header.Get("Retry-After"))
		}
		for _, verdict := range []string{"not known", "revoked", "malformed", "needs an API token", "check the token"} {
			if strings.Contains(p.message, verdict) {
				t.Errorf("%s from the throttled address is answered %q, which says %q", what, p.message, verdict)
			}
		}
	}
	if s := h.Stats(); s.AuthFailures != 3 || s.AuthThrottled != 4 || s.RateLimited != 0 {
		t.Fatalf("stats %+v, want 3 failures and 4 throttled", s)
	}
}

// heldLookups is the real token store whose lookups wait until release
// is closed, announcing each on arrived: requests at once are all inside
// their check together.
type heldLookups struct {
	apitoken.Authenticator
	arrived chan struct{}
	release chan struct{}
}

func (h heldLookups) TokenByDigest(ctx context.Context, digest []byte) (apitoken.Token, error) {
	h.arrived <- struct{}{}
	<-h.release
	return h.Authenticator.TokenByDigest(ctx, digest)
}

// Each check holds a try of its address until it ends, so requests sent
// at once with unknown tokens get no more verdicts than the burst allows
// (the rest 429), and a check that finds a good token gives its try back.
func TestFailedAuthenticationsAtOnceCannotPassTheAddressLimit(t *testing.T) {
	t.Parallel()
	const burst, requests = 3, 24
	st, tokens := tokenStore(t)
	held := heldLookups{Authenticator: st, arrived: make(chan struct{}, requests), release: make(chan struct{})}
	f := fakeReaders{}
	h := NewHandler(Config{Runs: f, Triggers: f, Detail: f, Tokens: held, Ready: func() (bool, string) { return true, "" },
		Log: slog.New(slog.DiscardHandler), Limits: Limits{FailedAuth: rate.Every(1 << 40), FailedAuthBurst: burst}})
	good := func(i int) bool { return i == 0 }
	statuses := make(chan int, requests)
	for i := range requests {
		token := tokens[apitoken.Read]
		if !good(i) {
			unknown, _, err := apitoken.NewSecret()
			if err != nil {
				t.Fatal(err)
			}
			token = unknown
		}
		go func() {
			req := httptest.NewRequest("GET", "/api/v1/runs", nil)
			req.Host = "localhost"
			req.Header.Set("Authorization", "Bearer "+token)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			statuses <- rec.Code
		}()
	}
	// Every request waits in its lookup (one without a try of the
	// address too: a valid token is served whatever the address's
	// tries); only then are the lookups let go.
	deadline := time.After(10 * time.Second)
	for arrived := 0; arrived < requests; arrived++ {
		select {
		case <-held.arrived:
		case <-deadline:
			t.Fatalf("after 10 s: %d lookups waiting of %d", arrived, requests)
		}
	}
	close(held.release)
	count := map[int]int{}
	for range requests {
		count[<-statuses]++
	}
	if count[200] != 1 || count[401] > burst || count[401] < burst-1 || count[401]+count[429] != requests-1 {
		t.Fatalf("statuses %v; want the good token served, at most %d verdicts 401 (%d when the good token held a try) and 429 for the rest", count, burst, burst-1)
	}
	s := h.Stats()
	if s.AuthFailures != uint64(count[401]) || s.AuthThrottled != uint64(count[429]) {
		t.Fatalf("stats %+v for statuses %v", s, count)
	}
	// The failures spent their tries and the good token's check (when it
	// got one) gave its own back: exactly the rest are left.
	for i := range burst - count[401] {
		if p := send(t, h, "GET", "/api/v1/runs", "localhost", "qlt_nope", ""); p.status != 401 {
			t.Fatalf("failure %d of the %d tries left: %d %s", i, burst-count[401], p.status, p.code)
		}
	}
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", "qlt_nope", ""); p.status != 429 {
		t.Fatalf("a failure with no try left: %d %s; want 429", p.status, p.code)
	}
}

func TestEachTokenHasItsOwnRate(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{Limits: Limits{PerToken: rate.Every(1 << 40), Burst: 2}})
	for i := range 2 {
		if p := send(t, h, "GET", "/api/v1/runs", "localhost", tokens[apitoken.Read], ""); p.status != 200 {
			t.Fatalf("request %d: %d", i, p.status)
		}
	}
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", tokens[apitoken.Read], ""); p.status != 429 || p.code != "rate_limited" {
		t.Fatalf("over the rate: %d %s", p.status, p.code)
	}
	if p := send(t, h, "GET", "/api/v1/runs", "localhost", tokens[apitoken.Admin], ""); p.status != 200 {
		t.Fatalf("another token: %d %s", p.status, p.code)
	}
	if s := h.Stats(); s.RateLimited != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestABodyOverTheCapIs413(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{Limits: Limits{MaxBody: 64}})
	h.a.Pauser = h.g.tokens.(schedule.Pauser)
	p := send(t, h, "POST", "/api/v1/triggers/"+someID+"/pause", "localhost", tokens[apitoken.Operate], `{"note":"`+strings.Repeat("x", 100)+`"}`)
	if p.status != 413 || p.code != "request_too_large" {
		t.Fatalf("an oversized body: %d %s", p.status, p.code)
	}
}

// boundWords are what docs/operations.md says of each project rule, in its
// route table's column for a token bound to projects.
var boundWords = map[projectRule]string{noProject: "—", pathProject: "its projects, named in the path", runProject: "its projects' Runs; another's is 404, as a missing one",
	triggerProject: "its projects' triggers; another's is 404, as a missing one", notificationProject: "its projects' notifications; another's is 404, as a missing one", listed: "its projects' rows only", secretProject: "its projects' secrets (`PROJECT/NAME`)", fileProject: "a file of its projects", everyProject: "refused"}

// docs/operations.md lists the route table as it is.
func TestTheOperationsGuideListsEveryRoute(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range routes {
		scope := string(rt.scope)
		if rt.scope == public {
			scope = "none"
		}
		row := "| `" + rt.method + " " + rt.pattern + "` | " + scope + " | " + boundWords[rt.projects] + " |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/operations.md has no row %s", row)
		}
	}
}

// Without a store that admits manually, run-now and backfill say so; a
// cancel without a canceller too, and a notification's retry without an
// outbox.
func TestWritesTheServerCannotDoAreExplained(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{})
	for _, target := range []string{"/api/v1/triggers/" + someID + "/run", "/api/v1/triggers/" + someID + "/backfill", "/api/v1/runs/" + someID + "/cancel", "/api/v1/runs/" + someID + "/rerun", "/api/v1/triggers/" + someID + "/pause",
		"/api/v1/notifications/" + someID + "/retry"} {
		if p := send(t, h, "POST", target, "localhost", tokens[apitoken.Operate], `{}`); p.status != 409 || p.code != "failed_precondition" || p.reason != string(RefusalNotOverTheAPI) {
			t.Errorf("POST %s: %d %s %q; want 409 failed_precondition, reason %s", target, p.status, p.code, p.reason, RefusalNotOverTheAPI)
		}
	}
}

// Each failed authentication is counted under its reason (what
// qinglong_auth_failures_total{surface="api"} exports), and the totals are
// their sum.
func TestEachFailedAuthenticationIsCountedUnderItsReason(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	f := fakeReaders{}
	now := int64(0)
	h := NewHandler(Config{Runs: f, Triggers: f, Detail: f, Tokens: st, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler),
		NowMs: func() int64 { return now }, Limits: Limits{FailedAuthBurst: 6}})
	secret, tok, err := apitoken.Create(t.Context(), st, "tester", "0190a4f2-0000-7000-8000-0000000000ab", "short", apitoken.Read, 3_600_000_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.TokenRevoke(t.Context(), "tok-read", "tester"); err != nil {
		t.Fatal(err)
	}
	now = *tok.ExpiresAtMs
	unknown := apitoken.Prefix + strings.Repeat("A", 43)
	for _, token := range []string{"", "not-a-token", unknown, unknown, secret, tokens[apitoken.Read], unknown} {
		send(t, h, "GET", "/api/v1/runs", "localhost", token, "")
	}
	got := h.Stats()
	want := authlimit.Failures{Malformed: 2, Unknown: 2, Expired: 1, Revoked: 1, Throttled: 1}
	if got.API != want || got.AuthFailures != 6 || got.AuthThrottled != 1 {
		t.Fatalf("stats %+v; want the API's %+v, 6 failures and 1 throttled in all", got, want)
	}
}

// Every route a token is needed for says what it does, in the words `ql
// tokens --help` lists for its scope (Actions).
func TestEveryRouteSaysWhatItDoesForTheTokensHelp(t *testing.T) {
	for _, r := range routes {
		if (r.scope == public) != (r.does == "") {
			t.Errorf("%s %s (scope %q) says it does %q; a route needing a token says what it does, a probe nothing", r.method, r.pattern, r.scope, r.does)
		}
	}
}
