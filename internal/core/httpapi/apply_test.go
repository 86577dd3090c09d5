package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// applyError is the error answer of POST /api/v1/apply.
type applyError struct {
	Error struct {
		Code, Message, Reason string
		Errors                []fileError
		MoreErrors            int
	}
}

// postDefinitions sends yaml to POST /api/v1/apply?file=defs.yaml of a
// server publishing to a real embedded database.
func postDefinitions(t *testing.T, h http.Handler, yaml string) (int, applyError) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/apply?file=defs.yaml", strings.NewReader(yaml))
	req.Host = "localhost:8080"
	req.Header.Set("Content-Type", "application/yaml")
	h.ServeHTTP(rec, req)
	var body applyError
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q is not JSON: %v", rec.Body, err)
	}
	return rec.Code, body
}

// An invalid file is answered with every one of its errors in the errors
// list, each at its line and column in file order (the first where a
// client reading one looks for it, with the code and reason of the first),
// and the message saying them all and their count; past apply.MaxErrors
// the list stops and moreErrors counts the rest.
func TestAnInvalidFileIsAnsweredWithEveryErrorInItsList(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	h := authed(t, Config{Definitions: &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	const head = "project: demo\ntasks:\n  - name: a\n    script: echo\ntriggers:\n"
	three := head +
		"  - name: t\n    task: a\n    cron: '61 * * * *'\n    timezone: UTC\n" +
		"  - name: u\n    task: nope\n    cron: '0 * * * *'\n    timezone: UTC\n" +
		"  - name: v\n    task: a\n    cron: '0 * * * *'\n    timezone: Mars/Olympus\n"
	status, body := postDefinitions(t, h, three)
	e := body.Error
	want := []fileError{
		{Line: 8, Column: 11, Message: `trigger "t": trigger.cron: cron expression "61 * * * *"`},
		{Line: 10, Message: `trigger "u": trigger.task "nope" is not a task of this file`},
		{Line: 17, Column: 15, Message: `trigger "v": trigger.timezone: cron timezone "Mars/Olympus"`},
	}
	if status != http.StatusBadRequest || e.Code != "invalid" || e.Reason != "cron_field" || len(e.Errors) != len(want) || e.MoreErrors != 0 {
		t.Fatalf("three mistakes: %d %+v; want 400, invalid, the first's reason and three errors", status, e)
	}
	for i, w := range want {
		if got := e.Errors[i]; got.Line != w.Line || got.Column != w.Column || !strings.HasPrefix(got.Message, w.Message) {
			t.Errorf("error %d: %+v; want at %d:%d saying %q", i+1, got, w.Line, w.Column, w.Message)
		}
	}
	if !strings.HasPrefix(e.Message, "defs.yaml:8:11: trigger \"t\": trigger.cron") || !strings.Contains(e.Message, "\ndefs.yaml:10: trigger \"u\"") ||
		!strings.HasSuffix(e.Message, "\ndefs.yaml: 3 errors; nothing was applied") {
		t.Errorf("message %q; want every error, the first first, and their count last", e.Message)
	}

	var many strings.Builder
	many.WriteString(head)
	for i := range apply.MaxErrors + 5 {
		fmt.Fprintf(&many, "  - {name: t%d, task: a, cron: '61 * * * *', timezone: UTC}\n", i)
	}
	status, body = postDefinitions(t, h, many.String())
	if e := body.Error; status != http.StatusBadRequest || len(e.Errors) != apply.MaxErrors || e.MoreErrors != 5 || e.Errors[apply.MaxErrors-1].Line != 5+apply.MaxErrors ||
		!strings.Contains(e.Message, "\nand 5 more errors, listed once those above are fixed\ndefs.yaml: 55 errors; nothing was applied") {
		t.Errorf("55 mistakes: %d, %d errors listed (the last at line %d), %d more, message ending %q; want 400, 50 listed, 5 more",
			status, len(e.Errors), e.Errors[len(e.Errors)-1].Line, e.MoreErrors, e.Message[max(0, len(e.Message)-120):])
	}
}

// A server that can publish nothing (a cluster replica, whose role may
// not) answers an apply from a token of too small a scope as it answers
// an admin's, saying to apply on the database, not that an admin token is
// needed: that token would only meet the same refusal. A server that can
// publish still asks an operate token for admin scope.
func TestAnApplyAServerCanNeverPublishIsRefusedAsThatWhateverTheTokensScope(t *testing.T) {
	t.Parallel()
	st, tokens := tokenStore(t)
	answer := func(cfg Config, scope apitoken.Scope) (int, applyError) {
		cfg.Tokens, cfg.Ready, cfg.Log = st, func() (bool, string) { return true, "" }, slog.New(slog.DiscardHandler)
		h := NewHandler(cfg)
		return postDefinitions(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+tokens[scope])
			h.ServeHTTP(w, r)
		}), "project: demo\n")
	}
	for _, scope := range []apitoken.Scope{apitoken.Read, apitoken.Operate, apitoken.Admin} {
		status, body := answer(Config{}, scope)
		if status != http.StatusForbidden || !strings.Contains(body.Error.Message, "this server cannot publish definitions") || body.Error.Reason != string(RefusalNotOverTheAPI) {
			t.Errorf("apply with a %s token to a server that cannot publish: %d %+v; want 403 saying it cannot publish", scope, status, body.Error)
		}
	}
	publishing := Config{Definitions: &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}}
	if status, body := answer(publishing, apitoken.Operate); status != http.StatusForbidden || !strings.Contains(body.Error.Message, "needs a token of scope admin") {
		t.Errorf("apply with an operate token to a server that can publish: %d %+v; want 403 asking for scope admin", status, body.Error)
	}
}

// An apply whose body is sent as a form (curl -d, which strips the file's
// newlines) or a multipart upload (curl -F) is refused, reason
// apply_content_type, saying how to send the file, before its bytes are
// read as YAML: its "line 1" error would say nothing of why. A YAML, text
// or JSON type, or none, is read as the file.
func TestAnApplySentAsAFormOrUploadSaysToSendTheFileAsItIs(t *testing.T) {
	t.Parallel()
	st := sqlitetest.Open(t)
	h := authed(t, Config{Definitions: &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	const defs = "project: demo\ntasks:\n  - name: a\n    script: echo\ntriggers: []\n"
	post := func(ct, body string) (int, applyError) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/api/v1/apply?dryRun=true", strings.NewReader(body))
		req.Host = "localhost:8080"
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		h.ServeHTTP(rec, req)
		var e applyError
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		return rec.Code, e
	}
	for _, ct := range []string{"application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "image/png", "not a type"} {
		status, e := post(ct, strings.ReplaceAll(defs, "\n", ""))
		if status != http.StatusBadRequest || e.Error.Reason != "apply_content_type" || !strings.Contains(e.Error.Message, "curl --data-binary @FILE -H 'Content-Type: application/yaml'") {
			t.Errorf("apply sent as %q: %d %+v; want 400 apply_content_type saying how to send the file", ct, status, e.Error)
		}
	}
	for _, ct := range []string{"", "application/yaml", "application/x-yaml", "text/yaml; charset=utf-8", "text/plain", "application/octet-stream", "application/json"} {
		if status, e := post(ct, defs); status != http.StatusOK {
			t.Errorf("apply sent as %q: %d %+v; want it read as the file", ct, status, e.Error)
		}
	}
}
