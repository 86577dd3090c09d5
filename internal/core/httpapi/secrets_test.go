package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// secretsDefs uses one secret twice (a task's env, a channel) and names
// another nobody defines.
const secretsDefs = `project: rich
notifications:
  channels:
    hook: {type: webhook, url: "https://hooks.example.com/q", signingSecret: hook-key}
  rules:
    - {on: failed, channel: hook}
tasks:
  - {name: zeta, script: echo, env: {A: {secret: hook-key}, B: {secret: db_pass}}}
`

// secretsServer is the API of a server on a real embedded database whose
// secrets file is file (nil: none), its log captured in log, with the
// definitions of secretsDefs published.
func secretsServer(t *testing.T, file *process.Secrets) (http.Handler, map[apitoken.Scope]string, *syncbuf.Buffer) {
	t.Helper()
	st, tokens := tokenStore(t)
	log := &syncbuf.Buffer{}
	h := NewHandler(Config{Tokens: st, Export: st, Secrets: file,
		Definitions: &catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }},
		Ready:       func() (bool, string) { return true, "" }, Log: slog.New(slog.NewJSONHandler(log, nil))})
	req := httptest.NewRequest(http.MethodPost, "/api/v1/apply?file=defs.yaml", strings.NewReader(secretsDefs))
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+tokens[apitoken.Admin])
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("apply: %d %s", rec.Code, rec.Body)
	}
	return h, tokens, log
}

// call sends one request with token and returns the status and the raw
// answer.
func call(t *testing.T, h http.Handler, method, target, token, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// A secret set over the API is listed as defined beside its uses, then
// replaced and deleted; each answer says what the request did, a name
// the file does not define is not found, and neither an answer nor the
// server's log ever holds a value (the log names the secret and who).
func TestSecretsAreSetListedReplacedAndDeletedOverTheAPIWithoutEchoingAValue(t *testing.T) {
	t.Parallel()
	file := &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	h, tokens, log := secretsServer(t, file)
	admin := tokens[apitoken.Admin]
	const first, second = "first-value-Xq7", "second-value-Zr9"
	var answers []string
	expect := func(method, target, body string, status int, want string) {
		t.Helper()
		got, answer := call(t, h, method, target, admin, body)
		answers = append(answers, answer)
		if got != status || !strings.Contains(answer, want) {
			t.Fatalf("%s %s: %d %s; want %d with %s", method, target, got, answer, status, want)
		}
	}
	expect(http.MethodPut, "/api/v1/secrets/hook-key", `{"value": "`+first+`"}`, 200, `{"name":"hook-key","replaced":false}`)
	_, raw := call(t, h, http.MethodGet, "/api/v1/secrets", admin, "")
	answers = append(answers, raw)
	var l apply.SecretListing
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		t.Fatal(err)
	}
	if l.File != "" || strings.Contains(raw, file.Path) || !l.UsesKnown || !l.Complete || len(l.Secrets) != 2 ||
		l.Secrets[0].Name != "db_pass" || l.Secrets[0].Defined || len(l.Secrets[0].UsedBy) != 1 ||
		l.Secrets[1].Name != "hook-key" || !l.Secrets[1].Defined || len(l.Secrets[1].UsedBy) != 2 {
		t.Fatalf("listing %s; want db_pass missing (used once) and hook-key defined (used twice), and not the file's path %s", raw, file.Path)
	}
	expect(http.MethodPut, "/api/v1/secrets/hook-key", `{"value": "`+second+`"}`, 200, `{"name":"hook-key","replaced":true}`)
	if got, err := file.Resolve([]string{"hook-key"}); err != nil || got["hook-key"] != second {
		t.Fatalf("the file resolves %v, %v; want the replacing value", got, err)
	}
	expect(http.MethodDelete, "/api/v1/secrets/hook-key", "", 200, `{"name":"hook-key","deleted":true}`)
	expect(http.MethodDelete, "/api/v1/secrets/hook-key", "", 404, `secret \"hook-key\" is not defined`)
	expect(http.MethodPut, "/api/v1/secrets/bad%20name", `{"value": "`+first+`"}`, 400, "secret name")
	expect(http.MethodPut, "/api/v1/secrets/short", `{"value": "ab"}`, 400, "at least 4 are needed")
	expect(http.MethodPut, "/api/v1/secrets/big", `{"value": "`+strings.Repeat("x", process.MaxSecretLen+1)+`"}`, 400, "the limit is")
	expect(http.MethodPut, "/api/v1/secrets/none", `{}`, 400, `{\"value\": \"...\"}`)
	expect(http.MethodPut, "/api/v1/secrets/big", `{"value": "`+strings.Repeat(`\u0001`, process.MaxSecretLen+200)+`"}`, 413, "at most 32768 bytes")
	for _, a := range answers {
		if strings.Contains(a, first) || strings.Contains(a, second) {
			t.Errorf("an answer holds a value: %s", a)
		}
	}
	logged := log.String()
	if strings.Contains(logged, first) || strings.Contains(logged, second) {
		t.Errorf("the log holds a value:\n%s", logged)
	}
	for _, want := range []string{`"code":"secrets.set","secret":"hook-key","replaced":false,"actor":"api:tok-admin@`,
		`"code":"secrets.set","secret":"hook-key","replaced":true`, `"code":"secrets.deleted","secret":"hook-key","actor":"api:tok-admin@`} {
		if !strings.Contains(logged, want) {
			t.Errorf("the log lacks %s:\n%s", want, logged)
		}
	}
}

// Only an admin token lists or edits secrets: a read or operate token is
// refused with 403 and the file is left as it was.
func TestSecretsRoutesRefuseAReadOrOperateToken(t *testing.T) {
	t.Parallel()
	file := &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	h, tokens, _ := secretsServer(t, file)
	for _, s := range []apitoken.Scope{apitoken.Read, apitoken.Operate} {
		for _, r := range []struct{ method, target, body string }{
			{http.MethodGet, "/api/v1/secrets", ""},
			{http.MethodPut, "/api/v1/secrets/hook-key", `{"value": "some-value"}`},
			{http.MethodDelete, "/api/v1/secrets/hook-key", ""},
		} {
			if got, answer := call(t, h, r.method, r.target, tokens[s], r.body); got != http.StatusForbidden || !strings.Contains(answer, "needs a token of scope admin") {
				t.Errorf("%s %s with a %s token: %d %s; want 403", r.method, r.target, s, got, answer)
			}
		}
	}
	if _, err := os.Stat(file.Path); !os.IsNotExist(err) {
		t.Errorf("the secrets file was written: %v", err)
	}
}

// A server without a secrets file of its own (a cluster replica: the
// machines that run the commands hold theirs) refuses every secrets
// route with 409, naming the command to run on those machines.
func TestSecretsRoutesOfAServerWithoutASecretsFileAnswer409(t *testing.T) {
	t.Parallel()
	h, tokens, _ := secretsServer(t, nil)
	for _, r := range []struct{ method, target, body string }{
		{http.MethodGet, "/api/v1/secrets", ""},
		{http.MethodPut, "/api/v1/secrets/hook-key", `{"value": "some-value"}`},
		{http.MethodDelete, "/api/v1/secrets/hook-key", ""},
	} {
		got, answer := call(t, h, r.method, r.target, tokens[apitoken.Admin], r.body)
		if got != http.StatusConflict || !strings.Contains(answer, `"code":"failed_precondition"`) ||
			!strings.Contains(answer, "ql secrets set NAME --secrets-file FILE") {
			t.Errorf("%s %s: %d %s; want 409 naming ql secrets set --secrets-file", r.method, r.target, got, answer)
		}
	}
}

// A secrets file the server may not use is refused with the file's own
// error and what to do, never read over.
func TestSecretsRoutesRefuseAFileTheServerCannotUse(t *testing.T) {
	t.Parallel()
	file := &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	if err := os.WriteFile(file.Path, []byte(`{"hook-key": "some-value"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h, tokens, _ := secretsServer(t, file)
	for _, r := range []struct{ method, target, body string }{
		{http.MethodGet, "/api/v1/secrets", ""},
		{http.MethodPut, "/api/v1/secrets/hook-key", `{"value": "other-value"}`},
	} {
		got, answer := call(t, h, r.method, r.target, tokens[apitoken.Admin], r.body)
		if got != http.StatusConflict || !strings.Contains(answer, "run chmod 600") || strings.Contains(answer, "some-value") {
			t.Errorf("%s %s: %d %s; want 409 saying to chmod 600", r.method, r.target, got, answer)
		}
	}
}

// Every name the secrets API stores, a task's env can refer to, and a
// name a task cannot is refused: one rule (task.IsSecretName), so no
// secret is stored under a name no definition can use (an upper-case
// name was stored, then refused in {secret: UPPER}).
func TestEveryNameTheSecretsAPIStoresATaskCanReferTo(t *testing.T) {
	t.Parallel()
	h, tokens, _ := secretsServer(t, &process.Secrets{Path: filepath.Join(t.TempDir(), "secrets.json")})
	for _, name := range []string{"UPPER", "Mixed.Case-1", "_lead", "db_pass"} {
		if st, body := call(t, h, http.MethodPut, "/api/v1/secrets/"+name, tokens[apitoken.Admin], `{"value":"abcdef12"}`); st != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", name, st, body)
		}
		defs := "project: refs\ntasks:\n  - {name: t, script: echo, env: {A: {secret: " + name + "}}}\n"
		req := httptest.NewRequest(http.MethodPost, "/api/v1/apply?dryRun=true", strings.NewReader(defs))
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+tokens[apitoken.Admin])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("a task referring to the stored secret %s: %d %s; want it applied", name, rec.Code, rec.Body)
		}
	}
	for _, name := range []string{"has%20space", "caf%C3%A9"} {
		if st, body := call(t, h, http.MethodPut, "/api/v1/secrets/"+name, tokens[apitoken.Admin], `{"value":"abcdef12"}`); st != http.StatusBadRequest {
			t.Errorf("PUT %s: %d %s; want it refused as no task can refer to it", name, st, body)
		}
	}
}

// The secrets routes never tell an admin token the secrets file's path
// on the server's host: not the listing (no file field), not the refusal
// of a name the file does not define, not a set or a delete. A token
// holder works through the API and need not know the host's layout.
func TestTheSecretsRoutesNeverNameTheSecretsFilesHostPath(t *testing.T) {
	t.Parallel()
	file := &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	h, tokens, _ := secretsServer(t, file)
	admin := tokens[apitoken.Admin]
	for _, c := range []struct{ method, target, body string }{
		{http.MethodGet, "/api/v1/secrets", ""},
		{http.MethodPut, "/api/v1/secrets/hook-key", `{"value": "some-value-1"}`},
		{http.MethodGet, "/api/v1/secrets", ""},
		{http.MethodDelete, "/api/v1/secrets/hook-key", ""},
		{http.MethodDelete, "/api/v1/secrets/hook-key", ""},
	} {
		status, answer := call(t, h, c.method, c.target, admin, c.body)
		if status >= 500 || strings.Contains(answer, file.Path) || strings.Contains(answer, `"file"`) {
			t.Errorf("%s %s: %d %s; want an answer naming no path of the host", c.method, c.target, status, answer)
		}
	}
}
