package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// sendWith sends a request with body and headers (each a name and a
// value) to handler and returns the answer.
func sendWith(handler http.Handler, method, target, body string, headers ...[2]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "localhost"
	if body != "" && strings.HasPrefix(target, "/api/v1/apply") {
		req.Header.Set("Content-Type", "application/yaml")
	}
	for _, h := range headers {
		req.Header.Add(h[0], h[1])
	}
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec
}

func errorOf(t *testing.T, rec *httptest.ResponseRecorder) errorAnswer {
	t.Helper()
	var e errorAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("%d %s: not an error body: %v", rec.Code, rec.Body, err)
	}
	return e
}

// Every write route of the table either checks a precondition header
// it is sent or refuses it 400 precondition_not_here naming the header,
// before it does anything: a precondition is never ignored. Walks the
// route table whole, so a new write route is held to it too.
func TestEveryWriteRouteRefusesAPreconditionItDoesNotCheck(t *testing.T) {
	t.Parallel()
	// One token sends every pair at once: more than a token's burst.
	h := authed(t, Config{Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler), Limits: Limits{PerToken: 1000, Burst: 1000}})
	path := strings.NewReplacer("{id}", ids.New(), "{project}", "demo", "{name}", "demo")
	checked := 0
	for _, rt := range routes {
		if rt.method == http.MethodGet {
			continue
		}
		for _, header := range preconditionHeaders {
			if rt.preconditions.honours(header) {
				continue
			}
			checked++
			rec := sendWith(h, rt.method, path.Replace(rt.pattern), "{}", [2]string{header, `"sha256:00"`})
			e := errorOf(t, rec)
			if rec.Code != http.StatusBadRequest || e.Error.Reason != RefusalPreconditionNotHere || e.Error.Params["header"] != header ||
				!strings.Contains(e.Error.Message, "send the request without it") {
				t.Errorf("%s %s with %s: %d %s; want 400 %s naming the header", rt.method, rt.pattern, header, rec.Code, rec.Body, RefusalPreconditionNotHere)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d route and header pairs checked; the table has more write routes", checked)
	}
}

// definitionsHandler is an admin's API over a fresh SQLite store that
// applies, reads projects, lists triggers and enables them.
func definitionsHandler(t *testing.T) http.Handler {
	st := sqlitetest.Open(t)
	svc := &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	return authed(t, Config{Definitions: svc, Enabler: *svc, Export: st, Detail: st, Triggers: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
}

// etagOf reads project demo's ETag through h.
func etagOf(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := sendWith(h, "GET", "/api/v1/projects/demo", "")
	if rec.Code != 200 || rec.Header().Get("ETag") == "" {
		t.Fatalf("the project read: %d %s", rec.Code, rec.Body)
	}
	return rec.Header().Get("ETag")
}

// A trigger's enable or disable with If-Match publishes only over the
// revision of its project the client read, as an apply does: over a
// revision since moved it is refused 412 spec_changed naming the revision
// now, changing nothing; over the revision now it publishes; asked again
// for the state the trigger is in, it answers unchanged.
func TestADisableWithIfMatchPublishesOnlyOverTheRevisionItsClientRead(t *testing.T) {
	t.Parallel()
	h := definitionsHandler(t)
	file := func(script string) string {
		return "project: demo\ntasks:\n  - name: a\n    script: " + script +
			"\ntriggers:\n  - name: tick\n    task: a\n    cron: \"0 0 1 1 *\"\n    timezone: UTC\n"
	}
	if rec := sendWith(h, "POST", "/api/v1/apply", file("echo one")); rec.Code != 200 {
		t.Fatalf("the first apply: %d %s", rec.Code, rec.Body)
	}
	first := etagOf(t, h)
	if rec := sendWith(h, "POST", "/api/v1/apply", file("echo two")); rec.Code != 200 {
		t.Fatalf("the second apply: %d %s", rec.Code, rec.Body)
	}
	second := etagOf(t, h)
	var list struct {
		Triggers []struct{ TriggerID string }
	}
	if rec := sendWith(h, "GET", "/api/v1/triggers", ""); rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &list) != nil || len(list.Triggers) != 1 {
		t.Fatalf("the triggers: %d %s", rec.Code, rec.Body)
	}
	disable := "/api/v1/triggers/" + list.Triggers[0].TriggerID + "/disable"

	rec := sendWith(h, "POST", disable, "{}", [2]string{"If-Match", first})
	if e := errorOf(t, rec); rec.Code != 412 || e.Error.Reason != apply.RefusalSpecChanged || e.Error.Params["revision"] != strings.Trim(second, `"`) {
		t.Fatalf("a disable over a revision since moved: %d %s; want 412 %s naming %s", rec.Code, rec.Body, apply.RefusalSpecChanged, second)
	}
	if etagOf(t, h) != second {
		t.Fatal("the refused disable moved the revision")
	}
	var done struct{ Changed, Enabled bool }
	rec = sendWith(h, "POST", disable, "{}", [2]string{"If-Match", second})
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &done) != nil || !done.Changed || done.Enabled {
		t.Fatalf("a disable over the revision now: %d %s; want it disabled", rec.Code, rec.Body)
	}
	if etagOf(t, h) == second {
		t.Fatal("the disable did not move the revision")
	}
	rec = sendWith(h, "POST", disable, "{}", [2]string{"If-Match", second})
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &done) != nil || done.Changed || done.Enabled {
		t.Fatalf("the disable asked again over the revision it moved: %d %s; want it unchanged", rec.Code, rec.Body)
	}
}

// An apply with If-None-Match: * creates its project only if none has
// its name: asked again with the same file it answers unchanged, and with
// a file that would change the existing project it is refused 412
// project_exists naming its revision (a dry run too). Another value, or
// If-Match beside it, is refused 400 precondition_header.
func TestAnApplyWithIfNoneMatchStarCreatesOnlyAProjectThatDoesNotExist(t *testing.T) {
	t.Parallel()
	h := definitionsHandler(t)
	file := func(script string) string { return "project: demo\ntasks:\n  - name: a\n    script: " + script + "\n" }
	star := [2]string{"If-None-Match", "*"}
	if rec := sendWith(h, "POST", "/api/v1/apply", file("echo one"), star); rec.Code != 200 {
		t.Fatalf("If-None-Match: * of a project that does not exist: %d %s; want it created", rec.Code, rec.Body)
	}
	now := etagOf(t, h)
	if rec := sendWith(h, "POST", "/api/v1/apply", file("echo one"), star); rec.Code != 200 {
		t.Fatalf("the same file asked again: %d %s; want it unchanged", rec.Code, rec.Body)
	}
	for _, target := range []string{"/api/v1/apply?dryRun=true", "/api/v1/apply"} {
		rec := sendWith(h, "POST", target, file("echo two"), star)
		if e := errorOf(t, rec); rec.Code != 412 || e.Error.Reason != apply.RefusalProjectExists || e.Error.Params["revision"] != strings.Trim(now, `"`) ||
			!strings.Contains(e.Error.Message, strings.Trim(now, `"`)) {
			t.Fatalf("%s of a changed file with If-None-Match: *: %d %s; want 412 %s naming %s", target, rec.Code, rec.Body, apply.RefusalProjectExists, now)
		}
	}
	if etagOf(t, h) != now {
		t.Fatal("the refused apply published")
	}
	for what, headers := range map[string][][2]string{
		"a revision":    {{"If-None-Match", now}},
		"with If-Match": {star, {"If-Match", now}},
	} {
		rec := sendWith(h, "POST", "/api/v1/apply", file("echo three"), headers...)
		if e := errorOf(t, rec); rec.Code != 400 || e.Error.Reason != RefusalPreconditionHeader {
			t.Errorf("If-None-Match %s: %d %s; want 400 %s", what, rec.Code, rec.Body, RefusalPreconditionHeader)
		}
	}
}

// If-Match: * on a project that does not exist is refused saying the
// project does not exist (it matches any revision there is), not that it
// changed since revision "*".
func TestIfMatchStarOnAProjectThatDoesNotExistSaysItDoesNotExist(t *testing.T) {
	t.Parallel()
	h := definitionsHandler(t)
	rec := sendWith(h, "POST", "/api/v1/apply", "project: demo\ntasks:\n  - name: a\n    script: echo\n", [2]string{"If-Match", "*"})
	e := errorOf(t, rec)
	if rec.Code != 412 || !strings.Contains(e.Error.Message, `project "demo" does not exist`) || strings.Contains(e.Error.Message, "changed since") {
		t.Fatalf("If-Match: * of a project that does not exist: %d %s; want 412 saying it does not exist", rec.Code, rec.Body)
	}
}

// An If-Match revision over a project that does not exist was read from
// another database or names a mistyped project: the refusal says it does
// not exist here and how to create it, not that it "changed".
func TestIfMatchARevisionOfAProjectThatDoesNotExistSaysItIsNotHere(t *testing.T) {
	t.Parallel()
	h := definitionsHandler(t)
	rec := sendWith(h, "POST", "/api/v1/apply", "project: demo\ntasks:\n  - name: a\n    script: echo\n", [2]string{"If-Match", `"sha256:abc"`})
	e := errorOf(t, rec)
	if rec.Code != 412 || !strings.Contains(e.Error.Message, `project "demo" does not exist here`) || !strings.Contains(e.Error.Message, "without --if-match") ||
		strings.Contains(e.Error.Message, "changed since") {
		t.Fatalf("If-Match: sha256:abc of a project that does not exist: %d %s; want 412 saying it does not exist here and how to create it", rec.Code, rec.Body)
	}
}
