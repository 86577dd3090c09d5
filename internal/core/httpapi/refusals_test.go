package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// refusal is one request the walk sends and the status and reason it
// must be refused with.
type refusal struct {
	name           string
	method, target string
	host, token    string
	contentType    string
	body           string
	status         int
	reason         qlerror.Reason
}

// errorAnswer is an error body as a client reads it.
type errorAnswer struct {
	Error struct {
		Code    string
		Message string
		Reason  qlerror.Reason
		Params  map[string]string
	}
}

// ask sends rf to h and returns the status and the decoded error body.
func ask(t *testing.T, h http.Handler, rf refusal) (int, errorAnswer, http.Header) {
	t.Helper()
	var body io.Reader
	if rf.body != "" {
		body = strings.NewReader(rf.body)
	}
	req := httptest.NewRequest(rf.method, rf.target, body)
	req.Host = "localhost"
	if rf.host != "" {
		req.Host = rf.host
	}
	if rf.token != "" {
		req.Header.Set("Authorization", "Bearer "+rf.token)
	}
	if rf.contentType != "" {
		req.Header.Set("Content-Type", rf.contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var a errorAnswer
	if rec.Code >= 400 {
		if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
			t.Fatalf("%s: %d answer %q is not an error body: %v", rf.name, rec.Code, rec.Body, err)
		}
	}
	return rec.Code, a, rec.Header()
}

// reasonsServer is the API on a real embedded database with pause, run
// now, backfill, projects and a secrets file, and its tokens: one per
// scope, plus a revoked and an expired one.
func reasonsServer(t *testing.T, lim Limits, ready bool) (*Handler, map[string]string) {
	t.Helper()
	st, scoped := tokenStore(t)
	tokens := map[string]string{}
	for s, secret := range scoped {
		tokens[string(s)] = secret
	}
	revoked, _, err := apitoken.Create(t.Context(), st, "tester", "0190a4f2-0000-7000-8000-0000000000a1", "gone", apitoken.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.TokenRevoke(t.Context(), "gone", "tester"); err != nil {
		t.Fatal(err)
	}
	expired, _, err := apitoken.Create(t.Context(), st, "tester", "0190a4f2-0000-7000-8000-0000000000a2", "old", apitoken.Read, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	unknown, _, err := apitoken.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	tokens["revoked"], tokens["expired"], tokens["unknown"] = revoked, expired, unknown
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Pauser: st, Manual: st, Export: st, Notifications: st,
		Secrets: &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")},
		NowMs:   func() int64 { return time.Now().Add(time.Hour).UnixMilli() },
		Limits:  lim, Ready: func() (bool, string) { return ready, "starting" }, Log: slog.New(slog.DiscardHandler)})
	return h, tokens
}

// Every refusal of the API's own, before a handler runs and in the request
// it reads, carries its own stable reason, which operations.md tells
// clients to match instead of the message: each 401 by what is wrong with
// the token, the two 429s apart, 403, 404, 405, 413, 421, 503, every body
// and query-parameter error, and the secrets and project routes'.
func TestEveryRefusalOfTheAPICarriesItsReason(t *testing.T) {
	t.Parallel()
	// Every route is asked several times in a row with one admin token:
	// a burst of the default size would refuse the last of them as over
	// its rate, which the server of its own below checks.
	h, tok := reasonsServer(t, Limits{FailedAuthBurst: 1000, Burst: 1000}, true)
	trig := "/api/v1/triggers/" + someID
	json := "application/json"
	cases := []refusal{
		{name: "no token", method: "GET", target: "/api/v1/runs", status: 401, reason: RefusalTokenMissing},
		{name: "a malformed token", method: "GET", target: "/api/v1/runs", token: "qlt_short", status: 401, reason: RefusalTokenMalformed},
		{name: "an unknown token", method: "GET", target: "/api/v1/runs", token: tok["unknown"], status: 401, reason: RefusalTokenUnknown},
		{name: "a revoked token", method: "GET", target: "/api/v1/runs", token: tok["revoked"], status: 401, reason: RefusalTokenRevoked},
		{name: "an expired token", method: "GET", target: "/api/v1/runs", token: tok["expired"], status: 401, reason: RefusalTokenExpired},
		{name: "a scope too small", method: "POST", target: trig + "/pause", token: tok["read"], status: 403, reason: RefusalScopeTooSmall},
		{name: "another method", method: "DELETE", target: "/api/v1/runs", token: tok["read"], status: 405, reason: RefusalMethodNotAllowed},
		{name: "no such endpoint", method: "GET", target: "/api/v1/nope", token: tok["read"], status: 404, reason: RefusalNoSuchEndpoint},
		{name: "metrics not here", method: "GET", target: "/metrics", token: tok["read"], status: 404, reason: RefusalMetricsNotHere},
		{name: "a host off the list", method: "GET", target: "/api/v1/runs", host: "evil.example", token: tok["read"], status: 421, reason: RefusalHostNotAllowed},
		{name: "a body over the cap", method: "POST", target: trig + "/pause", token: tok["operate"], contentType: json,
			body: `{"note":"` + strings.Repeat("x", 2<<20) + `"}`, status: 413, reason: RefusalBodyTooLarge},
		{name: "another content type", method: "POST", target: trig + "/run", token: tok["operate"], contentType: "text/plain", body: `{}`, status: 400, reason: RefusalBodyContentType},
		{name: "an array", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `[]`, status: 400, reason: RefusalBodyNotObject},
		{name: "null", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `null`, status: 400, reason: RefusalBodyNotObject},
		{name: "truncated JSON", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{"requestId":`, status: 400, reason: RefusalBodyTruncated},
		{name: "not JSON", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{x}`, status: 400, reason: RefusalBodyNotJSON},
		{name: "two values", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{"requestId":"a"} {}`, status: 400, reason: RefusalBodyManyValues},
		{name: "a field of the wrong type", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{"requestId":5}`, status: 400, reason: RefusalBodyFieldType},
		{name: "an unknown field", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{"nope":1}`, status: 400, reason: RefusalBodyUnknownField},
		{name: "a field in another case", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{"RequestId":"r6"}`, status: 400, reason: RefusalBodyUnknownField},
		{name: "a field twice", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{"requestId":"r4","requestId":"r5"}`, status: 400, reason: RefusalBodyFieldTwice},
		{name: "no requestId", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{}`, status: 400, reason: RefusalBodyFieldMissing},
		{name: "a requestId with a space", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json, body: `{"requestId":"has space"}`, status: 400, reason: schedule.RefusalRequestIDShape},
		{name: "a requestId over its length", method: "POST", target: trig + "/run", token: tok["operate"], contentType: json,
			body: `{"requestId":"` + strings.Repeat("r", schedule.MaxRequestIDLen+1) + `"}`, status: 400, reason: schedule.RefusalRequestIDShape},
		{name: "toMs before fromMs", method: "POST", target: trig + "/backfill", token: tok["operate"], contentType: json, body: `{"fromMs":2000,"toMs":1000}`, status: 400, reason: schedule.RefusalBackfillReversed},
		{name: "no fromMs", method: "POST", target: trig + "/backfill", token: tok["operate"], contentType: json, body: `{"toMs":0}`, status: 400, reason: RefusalBodyFieldMissing},
		{name: "a resume's note over its length", method: "POST", target: trig + "/resume", token: tok["operate"], contentType: json,
			body: `{"note":"` + strings.Repeat("n", schedule.MaxPauseNote+1) + `"}`, status: 400, reason: schedule.RefusalPauseNoteTooLong},
		{name: "an unknown parameter", method: "GET", target: "/api/v1/runs?nope=1", token: tok["read"], status: 400, reason: RefusalQueryUnknown},
		{name: "a parameter twice", method: "GET", target: "/api/v1/runs?limit=1&limit=2", token: tok["read"], status: 400, reason: RefusalQueryTwice},
		{name: "limit 0", method: "GET", target: "/api/v1/runs?limit=0", token: tok["read"], status: 400, reason: RefusalQueryNotACount},
		{name: "runs 0", method: "GET", target: trig + "?runs=0", token: tok["read"], status: 400, reason: RefusalQueryNotACount},
		{name: "ledger abc", method: "GET", target: trig + "?ledger=abc", token: tok["read"], status: 400, reason: RefusalQueryNotACount},
		{name: "lastRun maybe", method: "GET", target: "/api/v1/triggers?lastRun=maybe", token: tok["read"], status: 400, reason: RefusalQueryNotABoolean},
		{name: "a project neither an id nor a name", method: "GET", target: "/api/v1/triggers?project=De%20mo", token: tok["read"], status: 400, reason: run.RefusalListNotAnID},
		{name: "a notifications' project neither an id nor a name", method: "GET", target: "/api/v1/notifications?project=De%20mo", token: tok["read"], status: 400, reason: run.RefusalListNotAnID},
		{name: "a runs' project neither an id nor a name", method: "GET", target: "/api/v1/runs?project=De%20mo", token: tok["read"], status: 400, reason: run.RefusalListNotAnID},
		{name: "a runs' trigger that is no id", method: "GET", target: "/api/v1/runs?trigger=x", token: tok["read"], status: 400, reason: run.RefusalListNotAnID},
		{name: "a runs' cursor that is no id", method: "GET", target: "/api/v1/runs?after=1", token: tok["read"], status: 400, reason: run.RefusalListNotAnID},
		{name: "a triggers' cursor that is no id", method: "GET", target: "/api/v1/triggers?after=1", token: tok["read"], status: 400, reason: run.RefusalListNotAnID},
		{name: "a notifications' cursor that is no id", method: "GET", target: "/api/v1/notifications?after=1", token: tok["read"], status: 400, reason: run.RefusalListNotAnID},
		{name: "a malformed secret name", method: "PUT", target: "/api/v1/secrets/bad%20name", token: tok["admin"], contentType: json, body: `{"value":"long enough"}`, status: 400, reason: process.RefusalSecretName},
		{name: "a short secret", method: "PUT", target: "/api/v1/secrets/ok", token: tok["admin"], contentType: json, body: `{"value":"ab"}`, status: 400, reason: process.RefusalSecretValueShort},
		{name: "a secret without a value", method: "PUT", target: "/api/v1/secrets/ok", token: tok["admin"], contentType: json, body: `{}`, status: 400, reason: RefusalBodyFieldMissing},
		{name: "a secret body over its cap", method: "PUT", target: "/api/v1/secrets/ok", token: tok["admin"], contentType: json,
			body: `{"value":"` + strings.Repeat("x", maxSecretBody) + `"}`, status: 413, reason: RefusalBodyTooLarge},
		{name: "an undefined secret", method: "DELETE", target: "/api/v1/secrets/absent", token: tok["admin"], status: 404, reason: RefusalSecretMissing},
		{name: "dryRun maybe", method: "POST", target: "/api/v1/apply?dryRun=maybe", token: tok["admin"], contentType: "application/yaml", body: "project: demo\n", status: 400, reason: RefusalQueryNotABoolean},
		{name: "a file name with a path", method: "POST", target: "/api/v1/apply?file=a/b.yaml", token: tok["admin"], contentType: "application/yaml", body: "project: demo\n", status: 400, reason: RefusalQueryFileName},
		{name: "a log's offset below 0", method: "GET", target: "/api/v1/runs/" + someID + "/log?offset=-1", token: tok["read"], status: 400, reason: RefusalQueryNotACount},
		{name: "a log's attempt 0", method: "GET", target: "/api/v1/runs/" + someID + "/log?attempt=0", token: tok["read"], status: 400, reason: RefusalQueryNotACount},
		{name: "a malformed project name", method: "GET", target: "/api/v1/projects/De%20mo", token: tok["read"], status: 400, reason: validate.RefusalNameShape},
	}
	// And on every route: no token, a token of too small a scope, another
	// method.
	for _, rt := range routes {
		target := strings.ReplaceAll(strings.ReplaceAll(rt.pattern, "{id}", someID), "{name}", "demo")
		cases = append(cases, refusal{name: "PATCH " + target, method: "PATCH", target: target, token: tok["admin"], status: 405, reason: RefusalMethodNotAllowed})
		if rt.scope == public {
			continue
		}
		cases = append(cases, refusal{name: rt.method + " " + target + " without a token", method: rt.method, target: target, status: 401, reason: RefusalTokenMissing})
		if rt.scope != apitoken.Read && rt.pattern != "/api/v1/apply" {
			cases = append(cases, refusal{name: rt.method + " " + target + " with a read token", method: rt.method, target: target, token: tok["read"], status: 403, reason: RefusalScopeTooSmall})
		}
	}
	for _, rf := range cases {
		status, a, _ := ask(t, h, rf)
		if status != rf.status || a.Error.Reason != rf.reason {
			t.Errorf("%s: %d reason %q (%s); want %d reason %q", rf.name, status, a.Error.Reason, a.Error.Message, rf.status, rf.reason)
		}
	}

	notReady, tok := reasonsServer(t, Limits{}, false)
	if status, a, _ := ask(t, notReady, refusal{method: "GET", target: "/api/v1/runs", token: tok["read"]}); status != 503 || a.Error.Reason != RefusalNotReady {
		t.Errorf("a server not ready: %d reason %q; want 503 %q", status, a.Error.Reason, RefusalNotReady)
	}

	// The two 429s share their code; their reasons and Retry-After tell
	// them apart.
	tight, tok := reasonsServer(t, Limits{PerToken: rate.Every(1 << 40), Burst: 1, FailedAuth: rate.Every(1 << 40), FailedAuthBurst: 1}, true)
	read := refusal{method: "GET", target: "/api/v1/runs", token: tok["read"]}
	if status, _, _ := ask(t, tight, read); status != 200 {
		t.Fatalf("the first request: %d", status)
	}
	if status, a, hd := ask(t, tight, read); status != 429 || a.Error.Reason != RefusalTokenOverRate || hd.Get("Retry-After") != "1" {
		t.Errorf("a token over its rate: %d reason %q Retry-After %q; want 429 %q 1", status, a.Error.Reason, hd.Get("Retry-After"), RefusalTokenOverRate)
	}
	bad := refusal{method: "GET", target: "/api/v1/runs", token: tok["unknown"]}
	if status, _, _ := ask(t, tight, bad); status != 401 {
		t.Fatalf("the first failure: %d", status)
	}
	if status, a, hd := ask(t, tight, bad); status != 429 || a.Error.Reason != RefusalAddressThrottled || hd.Get("Retry-After") != "60" {
		t.Errorf("a throttled address: %d reason %q Retry-After %q; want 429 %q 60", status, a.Error.Reason, hd.Get("Retry-After"), RefusalAddressThrottled)
	}
}
