package replica

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// A queued Run no live worker can take, because none carries its task's
// placement labels, gets from a running replica one run.waiting event
// saying so: `ql runs show` lists it with the labels it needs, the API's
// Run carries it, and the console's run page says it in words, in English
// and in Chinese.
func TestAQueuedClusterRunSaysInItsHistoryWhyItWaits(t *testing.T) {
	t.Parallel()
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, strings.Replace(clustertest.Triggers("placed", 1, clustertest.QuietCron()),
		"    script: echo hi\n", "    script: echo hi\n    placement: {labels: {gpu: a100}}\n", 1))
	env.MakeDue(t, 1000)
	rt := env.Runtime(t, "noted-admit", 30*time.Second)
	if sum, err := schedule.Round(t.Context(), rt, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("round %v %v", sum.Counts, err)
	}
	runID := ""
	if err := env.Super.QueryRow(t.Context(), `SELECT id::text FROM qinglong.runs`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	// The Run has waited the grace, so the first sweep may note it.
	if _, err := env.Super.Exec(t.Context(), `UPDATE qinglong.runs SET created_at_ms = created_at_ms - $2,
		queued_at_ms = queued_at_ms - $2 WHERE id = $1`, runID, pgstore.WaitingNoteGrace.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	env.ConnectWorker(t, rt, "eu-cpu", map[string]string{"zone": "eu"}, 4)
	r := startReplica(t, bin, env, "replica-noting")
	r.await(t, CodeReady, 30*time.Second)

	show := func() string {
		t.Helper()
		code, out := runQL(t, bin, []string{"QL_DATABASE_URL=" + env.URL(pgstore.RoleRuntime)}, "runs", "show", runID)
		if code != 0 {
			t.Fatalf("runs show: exit %d %q", code, out)
		}
		return out
	}
	// The sweep notes it within its cadence (5 s at the default run lease).
	eventually(t, 20*time.Second, "the run.waiting event", func() bool { return strings.Contains(show(), run.EventWaiting) })
	if out := show(); strings.Count(out, run.EventWaiting) != 1 || !strings.Contains(out, `"reason": "no_matching_worker"`) || !strings.Contains(out, `"gpu": "a100"`) {
		t.Fatalf("runs show lists the note as:\n%s\nwant one run.waiting, no_matching_worker, needing gpu=a100", out)
	}

	secret := env.Token(t, "noted", apitoken.Read)
	base := "http://" + r.addr
	var detail struct {
		Events []struct {
			Name    string          `json:"name"`
			Payload json.RawMessage `json:"payload"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(getBody(t, base+"/api/v1/runs/"+runID, secret)), &detail); err != nil {
		t.Fatal(err)
	}
	var notes []run.WaitingNote
	for _, e := range detail.Events {
		if e.Name != run.EventWaiting {
			continue
		}
		var n run.WaitingNote
		if err := json.Unmarshal(e.Payload, &n); err != nil {
			t.Fatalf("API payload %s: %v", e.Payload, err)
		}
		notes = append(notes, n)
	}
	if len(notes) != 1 || notes[0].Reason != run.WaitNoMatchingWorker || notes[0].Labels["gpu"] != "a100" || notes[0].Workers != 1 {
		t.Fatalf("the API's run.waiting events %+v, want one no_matching_worker needing gpu=a100 among 1 worker", notes)
	}

	c, get := consoleBrowser(t, base)
	if resp := consoleSignIn(t, c, get, base, map[string][]string{"token": {secret}}); resp.StatusCode != 303 {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	for lang, want := range map[string]string{
		"en": "requires the labels gpu=a100, and the 1 live worker does not carry them all",
		"zh": "要求标签 gpu=a100，但 1 个在线执行节点中没有一个同时具备这些标签",
	} {
		resp, body := get("/runs/" + runID + "?lang=" + lang)
		if resp.StatusCode != 200 {
			t.Fatalf("run page (%s): %d", lang, resp.StatusCode)
		}
		// The page's "Why it waits" says it too, above the events: the
		// event's own sentence is the one after its mark.
		i := strings.Index(body, `class="event-facts"`)
		if i < 0 || !strings.Contains(body[i:], want) {
			t.Fatalf("the %s run page's events do not say %q:\n%s", lang, want, body)
		}
	}
}
