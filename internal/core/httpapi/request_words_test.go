package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// answer is a request's status and its body's error, as a client reads
// them, and the raw body.
type answer struct {
	status int
	code   string
	msg    string
	reason string
	raw    string
}

// request sends one request with token (and a JSON body when not empty).
func request(t *testing.T, h http.Handler, method, target, token, body string) answer {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "localhost"
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var b struct {
		Error struct{ Code, Message, Reason string }
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &b)
	return answer{status: rec.Code, code: b.Error.Code, msg: b.Error.Message, reason: b.Error.Reason, raw: rec.Body.String()}
}

// onePublishedTrigger is the API on a real embedded database holding
// project demo with one trigger, its tokens, and the trigger's and the
// project's ids.
func onePublishedTrigger(t *testing.T) (http.Handler, map[apitoken.Scope]string, string, string) {
	t.Helper()
	st, tokens := tokenStore(t)
	trig, projectID := publishTrigger(t, st, "hourly", "0 * * * *")
	h := NewHandler(Config{Runs: st, Triggers: st, Detail: st, Tokens: st, Manual: st, Export: st,
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	return h, tokens, trig, projectID
}

// A refusal of a query parameter names the parameter the client sent
// (runs, ledger, project, lastRun), never another the handler reads it
// as, and every one is worded the same way: `query parameter NAME is …`.
func TestAQueryParameterRefusalNamesTheParameterTheClientSent(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{})
	read := tokens[apitoken.Read]
	for target, name := range map[string]string{
		"/api/v1/triggers/" + someID + "?runs=0":     "runs",
		"/api/v1/triggers/" + someID + "?ledger=abc": "ledger",
		"/api/v1/runs?limit=x":                       "limit",
		"/api/v1/triggers?project=demo":              "project",
		"/api/v1/triggers?after=demo":                "after",
		"/api/v1/triggers?lastRun=maybe":             "lastRun",
	} {
		a := request(t, h, "GET", target, read, "")
		if a.status != 400 || !strings.HasPrefix(a.msg, "query parameter "+name+" is ") {
			t.Errorf("GET %s: %d %q; want 400 starting `query parameter %s is `", target, a.status, a.msg, name)
		}
		if name != "limit" && strings.Contains(a.msg, "limit") || strings.Contains(a.msg, "projectId") {
			t.Errorf("GET %s: %q names another parameter than %s", target, a.msg, name)
		}
	}
}

// GET /api/v1/projects/{name} and /api/v1/projects/{name}/definitions
// agree: a malformed name is 400 name_shape on both, and an unknown one
// 404 project_missing naming the projects there are on both.
func TestBothProjectRoutesRefuseAMalformedAndAnUnknownNameAlike(t *testing.T) {
	t.Parallel()
	h, tokens, _, _ := onePublishedTrigger(t)
	for _, path := range []string{"/api/v1/projects/%s", "/api/v1/projects/%s/definitions"} {
		malformed := request(t, h, "GET", strings.Replace(path, "%s", "De%20mo", 1), tokens[apitoken.Admin], "")
		if malformed.status != 400 || malformed.reason != "name_shape" {
			t.Errorf("%s of a malformed name: %d %s %q; want 400 name_shape", path, malformed.status, malformed.reason, malformed.msg)
		}
		unknown := request(t, h, "GET", strings.Replace(path, "%s", "nope", 1), tokens[apitoken.Admin], "")
		if unknown.status != 404 || unknown.reason != "project_missing" || !strings.Contains(unknown.msg, "the only project is demo") {
			t.Errorf("%s of an unknown name: %d %s %q; want 404 project_missing naming demo", path, unknown.status, unknown.reason, unknown.msg)
		}
	}
}

// A body's keys match the endpoint's fields exactly and once: a field in
// another case is refused naming its spelling (encoding/json alone would
// take it), a key given twice is refused naming it (encoding/json alone
// would take the last), and a UTF-8 byte-order mark before the object is
// skipped rather than read as a stray character.
func TestABodyKeyMatchesItsFieldExactlyAndOnce(t *testing.T) {
	t.Parallel()
	h, tokens, triggerID, _ := onePublishedTrigger(t)
	target := "/api/v1/triggers/" + triggerID + "/run"
	op := tokens[apitoken.Operate]
	if a := request(t, h, "POST", target, op, `{"RequestId":"r6"}`); a.status != 400 || !strings.Contains(a.msg, `"RequestId"`) || !strings.Contains(a.msg, `write it "requestId"`) {
		t.Errorf("a field in another case: %d %q; want 400 naming it and its spelling", a.status, a.msg)
	}
	if a := request(t, h, "POST", target, op, `{"requestId":"r4","requestId":"r5"}`); a.status != 400 || !strings.Contains(a.msg, `"requestId" twice`) {
		t.Errorf("a field twice: %d %q; want 400 naming it", a.status, a.msg)
	}
	if a := request(t, h, "POST", target, op, "\uFEFF"+`{"requestId":"r7"}`); a.status != 200 {
		t.Errorf("a body after a byte-order mark: %d %q; want it read", a.status, a.raw)
	}
}

// Ids are UUIDs, which compare case-insensitively: an upper-cased id in a
// path or a query parameter names the same trigger or project, and an
// upper-cased id of no run is not found rather than not an id.
func TestAnIDInUpperCaseNamesTheSameObject(t *testing.T) {
	t.Parallel()
	h, tokens, triggerID, projectID := onePublishedTrigger(t)
	read := tokens[apitoken.Read]
	if a := request(t, h, "GET", "/api/v1/triggers/"+strings.ToUpper(triggerID), read, ""); a.status != 200 || !strings.Contains(a.raw, triggerID) {
		t.Errorf("a trigger by its upper-cased id: %d %s; want it", a.status, a.raw)
	}
	if a := request(t, h, "GET", "/api/v1/triggers?project="+strings.ToUpper(projectID), read, ""); a.status != 200 || !strings.Contains(a.raw, triggerID) {
		t.Errorf("the triggers of a project by its upper-cased id: %d %s; want its trigger", a.status, a.raw)
	}
	if a := request(t, h, "GET", "/api/v1/runs?project="+strings.ToUpper(projectID), read, ""); a.status != 200 {
		t.Errorf("the runs of a project by its upper-cased id: %d %s; want them", a.status, a.raw)
	}
	if a := request(t, h, "GET", "/api/v1/runs/"+strings.ToUpper(someID), read, ""); a.status != 404 {
		t.Errorf("a run of no id upper-cased: %d %s; want 404", a.status, a.raw)
	}
}

// A refusal repeats a client's own text (a parameter's name or value, a
// path, a field) cut to its first characters, never a 9000-character name
// whole.
func TestARefusalEchoesOnlyTheStartOfAClientsText(t *testing.T) {
	t.Parallel()
	h, tokens := walkHandler(t, Config{})
	long := strings.Repeat("x", 9000)
	for _, target := range []string{"/api/v1/runs?" + long + "=1", "/api/v1/runs?limit=" + long, "/api/v1/" + long} {
		a := request(t, h, "GET", target, tokens[apitoken.Read], "")
		if a.status < 400 || len(a.msg) > 400 || !strings.Contains(a.msg, "xxx…") {
			t.Errorf("GET %.40s…: %d, a message of %d bytes; want a refusal echoing the text cut", target, a.status, len(a.msg))
		}
	}
}

// publishTrigger saves project demo on st with task job and the trigger
// name on expr (UTC, fire_once), published as the API's users find them,
// and returns the trigger's and the project's ids.
func publishTrigger(t *testing.T, st *sqlitestore.Store, name, expr string) (string, string) {
	t.Helper()
	p := project.Project{ID: ids.New(), Name: "demo", Status: project.Active}
	if _, err := st.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
	tk, _, err := svc.PublishTask(t.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeArgv, Path: "/usr/bin/env", Args: []string{"true"}, TimeoutMs: 60_000}})
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := svc.PublishTrigger(t.Context(), p.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: name, Enabled: true,
		Cron: trigger.Cron{Expression: expr, Timezone: "UTC", MisfirePolicy: trigger.FireOnce}})
	if err != nil {
		t.Fatal(err)
	}
	return tg.TriggerID, p.ID
}
