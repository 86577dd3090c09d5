package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/freeport"
)

// The answers a ql-edge server's API gives about Runs name ql-edge for
// every command they tell the client to run, and nothing of the cluster,
// in their fields as in their words: the Run listing; each Run's detail,
// whatever ended it (it succeeded, its command never started for want of
// a secret, a signal killed it, it was cancelled before it started and
// while it ran), with its attempts' words and error messages and its
// events, and why a queued one waits (no count of workers, no placement
// labels); each Run's output, where the server wrote why a command never
// started; and a trigger's detail with the occurrences it passed over.
func TestTheRunsAnswersOfQlEdgeNameOnlyQlEdgeCommandsAndNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	opts := options()
	dir := t.TempDir()
	defs := filepath.Join(t.TempDir(), "defs.yaml")
	file := "project: demo\ntasks:\n" +
		"  - {name: hello, script: echo hello}\n" +
		"  - {name: slow, script: sleep 60}\n" +
		"  - {name: keyed, script: echo keyed, env: {TOKEN: {secret: api-token}}}\n" +
		"  - {name: killed, script: 'kill -9 $$'}\n" +
		"triggers:\n" +
		"  - {name: hello, task: hello, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: slow, task: slow, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: keyed, task: keyed, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: killed, task: killed, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: missed, task: hello, cron: '0 3 * * *', timezone: UTC, misfire: skip}\n"
	if err := os.WriteFile(defs, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	runOK(t, opts, "apply", "-f", defs, "--data-dir", dir)
	admin := strings.TrimSpace(runOK(t, opts, "tokens", "create", "admin", "--scope", "admin", "--data-dir", dir))
	triggerID := func(name string) string { return triggerIDOf(t, opts, dir, "demo/"+name) }
	// demo/missed was due three days ago and nothing ran since: the
	// server's first round passes those occurrences over (misfire: skip)
	// and records them.
	today := time.Now().UTC().Truncate(24 * time.Hour).Add(3 * time.Hour)
	if today.After(time.Now()) {
		today = today.Add(-24 * time.Hour)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1
		WHERE trigger_id = (SELECT id FROM triggers WHERE name = 'missed')`, today.Add(-48*time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	hello, slow, keyed, killed, missed := triggerID("hello"), triggerID("slow"), triggerID("keyed"), triggerID("killed"), triggerID("missed")

	addr := freeport.Addr(t)
	base := "http://" + addr
	call := func(method, path string, headers map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+admin)
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
		return resp.StatusCode, string(b)
	}
	runNow := func(trigger, key string) string {
		t.Helper()
		st, b := call(http.MethodPost, "/api/v1/triggers/"+trigger+"/run", map[string]string{"Idempotency-Key": key})
		var queued struct {
			RunID string `json:"runId"`
		}
		if err := json.Unmarshal([]byte(b), &queued); err != nil || st != http.StatusOK || queued.RunID == "" {
			t.Fatalf("run now of %s: %d %s", trigger, st, b)
		}
		return queued.RunID
	}
	// reach waits, a bounded while, for Run id to be in one of states.
	reach := func(id string, states ...string) string {
		t.Helper()
		for i := 0; ; i++ {
			_, b := call(http.MethodGet, "/api/v1/runs/"+id, nil)
			for _, s := range states {
				if strings.Contains(b, `"state":"`+s+`"`) {
					return b
				}
			}
			if i == 300 {
				t.Fatalf("run %s did not reach %v within 30s: %s", id, states, b)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	finished := []string{"succeeded", "failed", "cancelled", "timed_out", "lost"}
	answers := map[string]string{}
	var runs []string
	ready := func(string) bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
		// One at a time, on the server's one slot.
		for _, c := range []struct{ trigger, key, says string }{
			{hello, "hello-1", `"state":"succeeded"`},
			{keyed, "keyed-1", "the command was not started"},
			{killed, "killed-1", "the command was killed by signal 9"},
		} {
			id := runNow(c.trigger, c.key)
			if b := reach(id, finished...); !strings.Contains(b, c.says) {
				t.Errorf("run %s of %s: %s; want it to say %s", id, c.key, b, c.says)
			}
			runs = append(runs, id)
		}
		// A Run queued behind one holding the slot waits its turn; both
		// are cancelled, the one before it started, the other while it
		// ran.
		running := runNow(slow, "slow-1")
		reach(running, "running")
		queued := runNow(hello, "hello-2")
		if b := reach(queued, "queued"); !strings.Contains(b, `"waiting":{"reason":"server_busy"`) {
			t.Errorf("a Run queued while the slot is held: %s; want it waiting, server_busy", b)
		}
		_, answers["a queued Run's detail"] = call(http.MethodGet, "/api/v1/runs/"+queued, nil)
		for _, id := range []string{queued, running} {
			if st, b := call(http.MethodPost, "/api/v1/runs/"+id+"/cancel", nil); st != http.StatusOK {
				t.Fatalf("cancel of %s: %d %s", id, st, b)
			}
			reach(id, finished...)
		}
		runs = append(runs, queued, running)
		_, answers["the Run listing"] = call(http.MethodGet, "/api/v1/runs", nil)
		for i, id := range runs {
			name := []string{"succeeded", "not started", "killed", "cancelled before it started", "cancelled while it ran"}[i]
			_, answers["the detail of the Run "+name] = call(http.MethodGet, "/api/v1/runs/"+id, nil)
			_, answers["the output of the Run "+name] = call(http.MethodGet, "/api/v1/runs/"+id+"/log", nil)
		}
		if out := answers["the output of the Run not started"]; !strings.Contains(out, "`ql-edge secrets set api-token") {
			t.Errorf("the output of the Run whose secret is missing: %q; want it to name `ql-edge secrets set api-token`", out)
		}
		st, b := call(http.MethodGet, "/api/v1/triggers/"+missed, nil)
		if st != http.StatusOK || !strings.Contains(b, `"reason":"misfire"`) {
			t.Errorf("the detail of a trigger that missed occurrences: %d %s; want them in its ledger as misfire", st, b)
		}
		answers["a trigger's passed-over occurrences"] = b
		return true
	}
	serveWith(t, opts, "the Runs' answers", ready, "--data-dir", dir, "--http-addr", addr, "--log-level", "warn", "--concurrency", "1")
	for what, a := range answers {
		// The data directory, in a message, is the test's temporary one.
		showsNothingOfTheCluster(t, []string{"serve:", what}, strings.ReplaceAll(a, dir, "DIR"), clusterWords)
	}
}
