package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/freeport"
)

// apiRefusal is one request to a ql-edge server's API and the reason it
// must be refused with.
type apiRefusal struct {
	name, method, path, token, body string
	headers                         map[string]string
	reason                          string
}

// The refusals a ql-edge server's API answers name ql-edge for every
// command they tell the client to run, and nothing of the cluster: no
// replica, worker or PostgreSQL, and no ql command. Each refusal below is
// one the API reaches whose message, built below the API, names a command
// (bad and unknown tokens, ids that are none, missing and disabled
// triggers and runs, archived and unknown projects, stale revisions,
// project-bound tokens, a running Run's re-run, a definitions file's
// errors), and so do an apply's notes, a queued Run's reason for waiting
// and a trigger's overlap warning.
func TestTheAPIRefusalsOfQlEdgeNameOnlyQlEdgeCommandsAndNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	opts := options()
	dir := t.TempDir()
	defs := filepath.Join(t.TempDir(), "defs.yaml")
	demo := "project: demo\ntasks:\n  - {name: hello, script: echo hello}\n  - {name: slow, script: sleep 60}\ntriggers:\n" +
		"  - {name: nightly, task: hello, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: slowly, task: slow, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: off, task: hello, cron: '0 4 * * *', timezone: UTC, enabled: false}\n" +
		"  - {name: once, task: slow, cron: '0 5 * * *', timezone: UTC, overlap: queue_one}\n"
	old := "project: old\ntasks:\n  - {name: hello, script: echo hello}\ntriggers:\n" +
		"  - {name: gone, task: hello, cron: '0 3 * * *', timezone: UTC}\n"
	// A project is archived by a later apply, which changes nothing else.
	for _, file := range []string{demo, old, "status: archived\n" + old} {
		if err := os.WriteFile(defs, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		runOK(t, opts, "apply", "-f", defs, "--data-dir", dir)
	}
	token := func(args ...string) string {
		return strings.TrimSpace(runOK(t, opts, append(append([]string{"tokens", "create"}, args...), "--data-dir", dir)...))
	}
	admin := token("admin", "--scope", "admin")
	// The answers read after the refusals are asked with a token of their
	// own, under its own rate.
	queuer := token("queuer", "--scope", "admin")
	revoked := token("gone", "--scope", "read")
	runOK(t, opts, "tokens", "revoke", "gone", "--data-dir", dir)
	expired := token("past", "--scope", "read", "--expires", "1d")
	demoAdmin := token("demo-admin", "--scope", "admin", "--project", "demo")
	token("old-reader", "--scope", "read", "--project", "old")
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE api_tokens SET created_at_ms = 1000, expires_at_ms = 2000 WHERE name = 'past'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	triggerID := func(name string) string { return triggerIDOf(t, opts, dir, name) }
	off, gone, slowly := triggerID("demo/off"), triggerID("old/gone"), triggerID("demo/slowly")
	nightly, once := triggerID("demo/nightly"), triggerID("demo/once")
	const none = "0190a4f2-0000-7000-8000-000000000000"
	changed := demo + "  - {name: more, task: hello, cron: '0 5 * * *', timezone: UTC}\n"

	addr := freeport.Addr(t)
	base := "http://" + addr
	call := func(method, path, token, body string, headers map[string]string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if body != "" && headers["Content-Type"] == "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if strings.HasSuffix(path, "/run") || strings.HasSuffix(path, "/rerun") {
			req.Header.Set("Idempotency-Key", "r-1")
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	yaml := map[string]string{"Content-Type": "application/yaml"}
	refusals := []apiRefusal{
		{name: "no token", method: http.MethodGet, path: "/api/v1/runs", reason: "token_missing"},
		{name: "a malformed token", method: http.MethodGet, path: "/api/v1/runs", token: "nonsense", reason: "token_malformed"},
		{name: "an unknown token", method: http.MethodGet, path: "/api/v1/runs", token: "qlt_" + strings.Repeat("A", 43), reason: "token_unknown"},
		{name: "a revoked token", method: http.MethodGet, path: "/api/v1/runs", token: revoked, reason: "token_revoked"},
		{name: "an expired token", method: http.MethodGet, path: "/api/v1/runs", token: expired, reason: "token_expired"},
		{name: "run now of a trigger id that is none", method: http.MethodPost, path: "/api/v1/triggers/not-a-trigger/run", reason: "not_a_trigger_id"},
		{name: "run now of a missing trigger", method: http.MethodPost, path: "/api/v1/triggers/" + none + "/run", reason: "trigger_missing"},
		{name: "run now of a disabled trigger", method: http.MethodPost, path: "/api/v1/triggers/" + off + "/run", reason: "trigger_disabled"},
		{name: "run now of an archived project's trigger", method: http.MethodPost, path: "/api/v1/triggers/" + gone + "/run", reason: "project_archived"},
		{name: "disable of an archived project's trigger", method: http.MethodPost, path: "/api/v1/triggers/" + gone + "/disable", reason: "publish_to_archived_project"},
		{name: "a trigger id that is none", method: http.MethodGet, path: "/api/v1/triggers/not-a-trigger", reason: "not_a_trigger_id"},
		{name: "pause of a missing trigger", method: http.MethodPost, path: "/api/v1/triggers/" + none + "/pause", reason: "trigger_missing"},
		{name: "a run id that is none", method: http.MethodGet, path: "/api/v1/runs/not-a-run", reason: "not_a_run_id"},
		{name: "a missing run", method: http.MethodGet, path: "/api/v1/runs/" + none, reason: "run_missing"},
		{name: "re-run of a run id that is none", method: http.MethodPost, path: "/api/v1/runs/not-a-run/rerun", reason: "not_a_run_id"},
		{name: "re-run of a missing run", method: http.MethodPost, path: "/api/v1/runs/" + none + "/rerun", reason: "run_missing"},
		{name: "cancel of a run id that is none", method: http.MethodPost, path: "/api/v1/runs/not-a-run/cancel", reason: "not_a_run_id"},
		{name: "cancel of a missing run", method: http.MethodPost, path: "/api/v1/runs/" + none + "/cancel", reason: "run_missing"},
		{name: "a run listing's trigger that is no id", method: http.MethodGet, path: "/api/v1/runs?trigger=x", reason: "query_not_an_id"},
		{name: "a run listing's cursor that is no id", method: http.MethodGet, path: "/api/v1/runs?after=1", reason: "query_not_an_id"},
		{name: "a trigger listing's cursor that is no id", method: http.MethodGet, path: "/api/v1/triggers?after=1", reason: "query_not_an_id"},
		{name: "a notification listing's cursor that is no id", method: http.MethodGet, path: "/api/v1/notifications?after=1", reason: "query_not_an_id"},
		{name: "retry of a notification id that is none", method: http.MethodPost, path: "/api/v1/notifications/x/retry", reason: "not_a_notification_id"},
		{name: "retry of a missing notification", method: http.MethodPost, path: "/api/v1/notifications/" + none + "/retry", reason: "notification_missing"},
		{name: "pause of an unknown project", method: http.MethodPost, path: "/api/v1/projects/nope/pause", reason: "project_missing"},
		{name: "pause of an archived project", method: http.MethodPost, path: "/api/v1/projects/old/pause", reason: "project_archived"},
		{name: "export of an unknown project", method: http.MethodGet, path: "/api/v1/projects/nope/definitions", reason: "project_missing"},
		{name: "delete of an active project", method: http.MethodDelete, path: "/api/v1/projects/demo", reason: "project_not_archived"},
		{name: "delete of a project live tokens are bound to", method: http.MethodDelete, path: "/api/v1/projects/old", reason: "project_has_bound_tokens"},
		{name: "an apply creating a project that exists", method: http.MethodPost, path: "/api/v1/apply", body: changed,
			headers: map[string]string{"Content-Type": "application/yaml", "If-None-Match": "*"}, reason: "project_exists"},
		{name: "an apply over a revision the project is no longer at", method: http.MethodPost, path: "/api/v1/apply", body: changed,
			headers: map[string]string{"Content-Type": "application/yaml", "If-Match": `"0000000000000000"`}, reason: "spec_changed"},
		{name: "an apply over a revision of a project that is none", method: http.MethodPost, path: "/api/v1/apply", body: strings.Replace(changed, "project: demo", "project: ghost", 1),
			headers: map[string]string{"Content-Type": "application/yaml", "If-Match": `"0000000000000000"`}, reason: "spec_changed"},
		{name: "an apply of a trigger firing at boot", method: http.MethodPost, path: "/api/v1/apply?dryRun=true",
			body: "project: boot\ntasks:\n  - {name: t, script: echo}\ntriggers:\n  - {name: b, task: t, cron: '@reboot', timezone: UTC}\n", headers: yaml, reason: "cron_reboot"},
		{name: "a bound token's run now in another project, which reads as missing", method: http.MethodPost, path: "/api/v1/triggers/" + gone + "/run", token: demoAdmin, reason: "trigger_missing"},
		{name: "a bound token's read of a project that is none", method: http.MethodGet, path: "/api/v1/projects/nope", token: demoAdmin, reason: "project_not_in_scope"},
		{name: "a bound token's read of the secrets", method: http.MethodGet, path: "/api/v1/secrets", token: demoAdmin, reason: "project_not_in_scope"},
	}
	var answers []string
	ready := func(string) bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
		// A Run that is running, whose re-run is refused until it ends.
		st, b := call(http.MethodPost, "/api/v1/triggers/"+slowly+"/run", admin, "", nil)
		var started struct {
			RunID string `json:"runId"`
		}
		if err := json.Unmarshal(b, &started); err != nil || st != http.StatusOK || started.RunID == "" {
			t.Fatalf("run now of demo/slowly: %d %s", st, b)
		}
		running := apiRefusal{name: "re-run of a Run not finished", method: http.MethodPost, path: "/api/v1/runs/" + started.RunID + "/rerun", reason: "run_not_finished"}
		for _, c := range append(refusals, running) {
			tok := c.token
			if tok == "" && !strings.HasPrefix(c.reason, "token_") {
				tok = admin
			}
			st, b := call(c.method, c.path, tok, c.body, c.headers)
			var answer struct {
				Error struct {
					Message string            `json:"message"`
					Reason  string            `json:"reason"`
					Errors  []json.RawMessage `json:"errors"`
				} `json:"error"`
			}
			if err := json.Unmarshal(b, &answer); err != nil || st < 400 || answer.Error.Message == "" {
				t.Errorf("%s: %d %s, want a refusal", c.name, st, b)
				continue
			}
			if answer.Error.Reason != c.reason {
				t.Errorf("%s: reason %q, want %q: %s", c.name, answer.Error.Reason, c.reason, b)
			}
			answers = append(answers, c.name+": "+string(b))
		}
		// Answers that are no refusals name their commands as the
		// refusals do: a queued Run held behind the one before it
		// (queue_one), and a trigger whose Runs queue behind those of
		// demo/slowly and demo/once, which hold the server's two slots.
		runNow := func(trigger, key string) string {
			st, b := call(http.MethodPost, "/api/v1/triggers/"+trigger+"/run", queuer, "", map[string]string{"Idempotency-Key": key})
			var queued struct {
				RunID string `json:"runId"`
			}
			if err := json.Unmarshal(b, &queued); err != nil || st != http.StatusOK || queued.RunID == "" {
				t.Fatalf("run now of %s: %d %s", trigger, st, b)
			}
			return queued.RunID
		}
		first := runNow(once, "once-1")
		// A queue_one trigger's second Run waits for the first only once
		// that one runs: while it is queued, the second is not made.
		for i := 0; ; i++ {
			_, b := call(http.MethodGet, "/api/v1/runs/"+first, queuer, "", nil)
			if strings.Contains(string(b), `"state":"running"`) {
				break
			}
			if i == 100 {
				t.Fatalf("demo/once's Run did not start within 10s: %s", b)
			}
			time.Sleep(100 * time.Millisecond)
		}
		held := runNow(once, "once-2")
		for i := range view.BacklogAt {
			runNow(nightly, fmt.Sprint("backlog-", i))
		}
		for _, c := range []struct{ name, path, want string }{
			{"a Run waiting for the one before it", "/api/v1/runs/" + held, "`ql-edge runs show "},
			{"a trigger's backlog behind another's Runs", "/api/v1/triggers/" + nightly, "`ql-edge triggers pause PROJECT/TRIGGER`"},
		} {
			st, b := call(http.MethodGet, c.path, queuer, "", nil)
			if st != http.StatusOK || !strings.Contains(string(b), c.want) {
				t.Errorf("%s: %d %s; want it to name %s", c.name, st, b, c.want)
			}
			// Whole, their fields as their words: a single node's waiting
			// Run counts no workers.
			answers = append(answers, c.name+": "+string(b))
		}
		call(http.MethodPost, "/api/v1/runs/"+started.RunID+"/cancel", admin, "", nil)
		call(http.MethodPost, "/api/v1/runs/"+first+"/cancel", queuer, "", nil)
		// An apply's notes name their commands as the refusals do.
		st, b = call(http.MethodPost, "/api/v1/apply?dryRun=true", admin,
			"project: keys\ntasks:\n  - {name: t, script: echo, env: {TOKEN: {secret: api-token}}}\n", yaml)
		if st != http.StatusOK || !strings.Contains(string(b), "`ql-edge secrets set NAME`") {
			t.Errorf("an apply naming a secret the file lacks: %d %s; want a note naming `ql-edge secrets set NAME`", st, b)
		}
		answers = append(answers, "an apply's notes: "+string(b))
		return true
	}
	serveWith(t, opts, "the API's refusals", ready, "--data-dir", dir, "--http-addr", addr, "--log-level", "warn", "--concurrency", "2")
	named := 0
	for _, a := range answers {
		// The data directory, in a message, is the test's temporary one.
		a = strings.ReplaceAll(a, dir, "DIR")
		showsNothingOfTheCluster(t, []string{"serve:", strings.SplitN(a, ":", 2)[0]}, a, clusterWords)
		if strings.Contains(a, "ql-edge ") {
			named++
		}
	}
	if named < len(refusals)/2 {
		t.Errorf("%d of %d refusals name a ql-edge command; the messages lost their commands:\n%s", named, len(answers), strings.Join(answers, "\n"))
	}
}
