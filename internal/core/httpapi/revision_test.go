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
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// sendIfMatch sends a request with body and If-Match (when not "") to h and
// returns the answer.
func sendIfMatch(h http.Handler, method, target, body, ifMatch string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "localhost"
	if body != "" {
		req.Header.Set("Content-Type", "application/yaml")
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// An apply with If-Match publishes only over the revision of the project
// its client read: the project read answers that revision as its ETag,
// any publish moves it, and an apply naming an older one is refused 412
// spec_changed naming the revision now and the one expected, in its
// message and its params, publishing nothing. Without
// If-Match the last apply wins, as ever.
func TestAnApplyWithIfMatchPublishesOnlyOverTheRevisionItsClientRead(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	h := authed(t, Config{Definitions: &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Export: st, Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	file := func(script string) string {
		return "project: demo\ntasks:\n  - name: a\n    script: " + script + "\n"
	}
	read := func() string {
		t.Helper()
		rec := sendIfMatch(h, "GET", "/api/v1/projects/demo", "", "")
		var body struct{ Revision string }
		if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != 200 || err != nil {
			t.Fatalf("the project read: %d %s", rec.Code, rec.Body)
		}
		if etag := rec.Header().Get("ETag"); etag != `"`+body.Revision+`"` || !strings.HasPrefix(body.Revision, "sha256:") {
			t.Fatalf("ETag %q, revision %q: want the revision, quoted", etag, body.Revision)
		}
		return rec.Header().Get("ETag")
	}
	if rec := sendIfMatch(h, "POST", "/api/v1/apply", file("echo one"), `"sha256:00"`); rec.Code != 412 {
		t.Fatalf("If-Match on a project that does not exist: %d %s; want 412", rec.Code, rec.Body)
	}
	if rec := sendIfMatch(h, "POST", "/api/v1/apply", file("echo one"), ""); rec.Code != 200 {
		t.Fatalf("the first apply: %d %s", rec.Code, rec.Body)
	}
	first := read()
	if again := read(); again != first {
		t.Fatalf("two reads of an unchanged project: %s then %s", first, again)
	}
	if rec := sendIfMatch(h, "POST", "/api/v1/apply", file("echo one"), first); rec.Code != 200 {
		t.Fatalf("an unchanged file over the revision read: %d %s", rec.Code, rec.Body)
	}
	if read() != first {
		t.Fatal("an apply that changed nothing moved the revision")
	}
	if rec := sendIfMatch(h, "POST", "/api/v1/apply", file("echo two"), first); rec.Code != 200 {
		t.Fatalf("an apply over the revision read: %d %s", rec.Code, rec.Body)
	}
	second := read()
	if second == first {
		t.Fatal("an apply that changed a task did not move the revision")
	}
	rec := sendIfMatch(h, "POST", "/api/v1/apply", file("echo three"), first)
	var refused errorAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &refused); err != nil || rec.Code != 412 || refused.Error.Reason != apply.RefusalSpecChanged ||
		!strings.Contains(refused.Error.Message, strings.Trim(second, `"`)) || !strings.Contains(refused.Error.Message, "read it again") {
		t.Fatalf("an apply over a revision since moved: %d %s; want 412 %s naming the revision now", rec.Code, rec.Body, apply.RefusalSpecChanged)
	}
	// A client acts on the params, never the message's words.
	if p := refused.Error.Params; p["revision"] != strings.Trim(second, `"`) || p["expected"] != strings.Trim(first, `"`) {
		t.Fatalf("the refusal's params %v; want revision %s and expected %s", p, second, first)
	}
	if read() != second {
		t.Fatal("the refused apply published")
	}
	if rec := sendIfMatch(h, "POST", "/api/v1/apply?dryRun=true", file("echo three"), first); rec.Code != 412 {
		t.Fatalf("a dry run over a revision since moved: %d %s; want 412 as the apply", rec.Code, rec.Body)
	}
	if rec := sendIfMatch(h, "POST", "/api/v1/apply", file("echo four"), "*"); rec.Code != 200 {
		t.Fatalf("If-Match * on a project there is: %d %s", rec.Code, rec.Body)
	}
	if rec := sendIfMatch(h, "POST", "/api/v1/apply", file("echo five"), ""); rec.Code != 200 {
		t.Fatalf("an apply without If-Match: %d %s; want it to win as ever", rec.Code, rec.Body)
	}
}
