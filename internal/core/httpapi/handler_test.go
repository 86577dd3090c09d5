package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fakeReaders answer with fixed data or a fixed error; they test the
// handler's own mapping. The same endpoints run against PostgreSQL in
// TestAPIOverPostgres.
type fakeReaders struct {
	err  error
	runs []run.Run
}

func (f fakeReaders) RunList(context.Context, run.ListParams) ([]run.Run, string, error) {
	return f.runs, "", f.err
}

func (f fakeReaders) RunGet(context.Context, string) (run.Detail, error) {
	return run.Detail{}, f.err
}

func (f fakeReaders) TriggerList(context.Context, schedule.TriggerListParams) ([]schedule.TriggerStatus, string, error) {
	return nil, "", f.err
}

func (f fakeReaders) TriggerDetail(context.Context, string, int) (schedule.TriggerDetail, error) {
	return schedule.TriggerDetail{}, f.err
}

type harness struct {
	h        *Handler
	tokens   map[apitoken.Scope]string
	logs     *bytes.Buffer
	mu       sync.Mutex
	observed []error
	ready    bool
	reason   string
}

func newHarness(t *testing.T, f fakeReaders) *harness {
	st, tokens := tokenStore(t)
	hs := &harness{logs: &bytes.Buffer{}, ready: true, tokens: tokens}
	hs.h = NewHandler(Config{
		Runs: f, Triggers: f, Detail: f, Tokens: st,
		Ready: func() (bool, string) { return hs.ready, hs.reason },
		Log:   slog.New(slog.NewJSONHandler(hs.logs, nil)),
		Observe: func(err error) {
			hs.mu.Lock()
			hs.observed = append(hs.observed, err)
			hs.mu.Unlock()
		},
	})
	return hs
}

type response struct {
	status int
	body   map[string]any
	raw    string
}

func (hs *harness) do(t *testing.T, method, target string) response {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, target, nil)
	req.Host = "localhost:8080"
	req.Header.Set("Authorization", "Bearer "+hs.tokens[apitoken.Admin])
	hs.h.ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %s: content type %q", method, target, ct)
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s %s: body %q is not JSON: %v", method, target, rec.Body, err)
	}
	return response{status: rec.Code, body: body, raw: rec.Body.String()}
}

func errorCode(r response) string {
	e, _ := r.body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

func TestLivezAnswersWhileTheProcessLivesWhateverTheReadiness(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, fakeReaders{})
	for _, ready := range []bool{true, false} {
		hs.ready, hs.reason = ready, "draining"
		if r := hs.do(t, http.MethodGet, "/livez"); r.status != http.StatusOK || r.body["status"] != "ok" {
			t.Fatalf("ready=%v: livez %d %v", ready, r.status, r.body)
		}
	}
}

func TestReadyzIs503WithAReasonUnlessAdmitting(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, fakeReaders{})
	for _, reason := range []string{"starting", "draining", "database_unavailable"} {
		hs.ready, hs.reason = false, reason
		r := hs.do(t, http.MethodGet, "/readyz")
		if r.status != http.StatusServiceUnavailable || r.body["reason"] != reason {
			t.Fatalf("%s: readyz %d %v", reason, r.status, r.body)
		}
	}
	hs.ready, hs.reason = true, ""
	if r := hs.do(t, http.MethodGet, "/readyz"); r.status != http.StatusOK || r.body["status"] != "ready" {
		t.Fatalf("readyz %d %v", r.status, r.body)
	}
}

func TestAPIRefusesRequestsUnlessAdmitting(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, fakeReaders{})
	hs.ready, hs.reason = false, "starting"
	for _, path := range []string{"/api/v1/runs", "/api/v1/runs/0190a4f2-0000-7000-8000-000000000000", "/api/v1/triggers"} {
		r := hs.do(t, http.MethodGet, path)
		if r.status != http.StatusServiceUnavailable || errorCode(r) != "unavailable" || !strings.Contains(r.raw, "starting") {
			t.Fatalf("%s: %d %s", path, r.status, r.raw)
		}
	}
}

func TestStatusOfMapsEveryCode(t *testing.T) {
	t.Parallel()
	want := map[qlerror.Code]int{
		qlerror.Invalid:            400,
		qlerror.NotFound:           404,
		qlerror.Conflict:           409,
		qlerror.MutationDrift:      409,
		qlerror.FailedPrecondition: 409,
		qlerror.Unavailable:        503,
		qlerror.Internal:           500,
		codeMethodNotAllowed:       405,
		qlerror.Unauthenticated:    401,
		qlerror.PermissionDenied:   403,
		codeRateLimited:            429,
		codeTooLarge:               413,
		codeHostNotAllowed:         421,
		"something_new":            500,
	}
	for code, status := range want {
		if got := statusOf(code); got != status {
			t.Errorf("%s → %d, want %d", code, got, status)
		}
	}
}

func TestEveryErrorIsJSONWithACode(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, fakeReaders{})
	cases := []struct {
		method, target string
		status         int
		code, mention  string
	}{
		{http.MethodGet, "/api/v1/nothing", 404, "not_found", "/api/v1/nothing"},
		{http.MethodPost, "/api/v1/runs", 405, "method_not_allowed", "only GET"},
		{http.MethodGet, "/api/v1/triggers/x/pause", 405, "method_not_allowed", "only POST"},
		{http.MethodDelete, "/api/v1/runs/x", 405, "method_not_allowed", "only GET"},
		{http.MethodGet, "/api/v1/runs?limit=0", 400, "invalid", "1 to 500"},
		{http.MethodGet, "/api/v1/runs?limit=many", 400, "invalid", "limit"},
		{http.MethodGet, "/api/v1/runs?projct=x", 400, "invalid", "projct"},
		{http.MethodGet, "/api/v1/runs?state=queued&state=running", 400, "invalid", "once"},
		{http.MethodGet, "/api/v1/runs/abc?verbose=1", 400, "invalid", "takes none"},
		{http.MethodGet, "/api/v1/triggers?limit=501", 400, "invalid", "1 to 500"},
	}
	for _, c := range cases {
		r := hs.do(t, c.method, c.target)
		if r.status != c.status || errorCode(r) != c.code || !strings.Contains(r.raw, c.mention) {
			t.Errorf("%s %s: %d %s, want %d %s mentioning %q", c.method, c.target, r.status, r.raw, c.status, c.code, c.mention)
		}
	}
}

func TestInternalErrorsHideTheirDetailFromClients(t *testing.T) {
	t.Parallel()
	driver := errors.New(`ERROR: invalid input "hunter2" for $1 in SELECT token FROM secrets`)
	hs := newHarness(t, fakeReaders{err: qlerror.Wrap(qlerror.Internal, driver, "listing runs")})
	r := hs.do(t, http.MethodGet, "/api/v1/runs")
	if r.status != 500 || errorCode(r) != "internal" || strings.Contains(r.raw, "hunter2") || strings.Contains(r.raw, "listing runs") {
		t.Fatalf("response %d %s", r.status, r.raw)
	}
	if !strings.Contains(hs.logs.String(), CodeInternalError) || !strings.Contains(hs.logs.String(), "listing runs") || strings.Contains(hs.logs.String(), "hunter2") {
		t.Fatalf("log %s: want the adapter's message under %s and no driver text", hs.logs, CodeInternalError)
	}
}

func TestStoreErrorsReachTheAvailabilityObserver(t *testing.T) {
	t.Parallel()
	lost := qlerror.Wrap(qlerror.Unavailable, schedule.ErrUnavailable, "listing triggers: the database is unavailable")
	hs := newHarness(t, fakeReaders{err: lost})
	r := hs.do(t, http.MethodGet, "/api/v1/triggers")
	if r.status != 503 || errorCode(r) != "unavailable" {
		t.Fatalf("response %d %s", r.status, r.raw)
	}
	if len(hs.observed) != 1 || !errors.Is(hs.observed[0], schedule.ErrUnavailable) {
		t.Fatalf("observed %v", hs.observed)
	}
}

func TestDefaultAddrIsLoopback(t *testing.T) {
	t.Parallel()
	if !strings.HasPrefix(DefaultAddr, "127.0.0.1:") {
		t.Fatalf("default address %s is not loopback", DefaultAddr)
	}
}

// A request that runs out of its time limit in a store that answers with
// the bare context error (SQLite's, waiting for the writer) is a 504
// timeout saying what to do, not a 500 logged as an internal error.
func TestARequestOutOfTimeIsATimeoutNotAnInternalError(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	logs := &bytes.Buffer{}
	h := NewHandler(Config{
		Runs: st, Triggers: st, Detail: st, Tokens: st, RequestTimeout: time.Nanosecond,
		Ready: func() (bool, string) { return true, "" },
		Log:   slog.New(slog.NewJSONHandler(logs, nil)),
	})
	hs := &harness{h: h, tokens: tokens, logs: logs}
	r := hs.do(t, http.MethodGet, "/api/v1/runs")
	msg, _ := r.body["error"].(map[string]any)["message"].(string)
	if r.status != http.StatusGatewayTimeout || errorCode(r) != "timeout" || !strings.Contains(msg, "did not finish within its 1ns limit") || !strings.Contains(msg, "retry later") {
		t.Fatalf("response %d %s; want 504 timeout saying the limit and what to do", r.status, r.raw)
	}
	if strings.Contains(logs.String(), CodeInternalError) {
		t.Fatalf("a request out of time was logged as an internal error: %s", logs)
	}
}
