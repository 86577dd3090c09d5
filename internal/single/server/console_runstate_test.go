package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// heldSlotScript prints a line, then runs until the file release names
// exists: with --concurrency 1 its first Run holds the only slot, and a
// second waits queued until the first is cancelled.
func heldSlotScript(release string) string {
	return `echo started; until [ -e ` + release + ` ]; do sleep 0.05; done`
}

// A queued Run's live log says the Run's state as it goes on, in the words
// of the page's state line in the page's language, among the facts it
// sends: the state it starts with (queued), then running once the Run
// starts, ahead of its output, so a page shown while the Run waited stops
// saying it is queued without loading again; the end carries the final
// state, as before.
func TestALiveLogSaysInThePagesLanguageWhenItsQueuedRunStarts(t *testing.T) {
	t.Parallel()
	release := filepath.Join(t.TempDir(), "release")
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		heldSlotScript(release), func(c *Config) { c.Concurrency = 1 })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	state := func(id string) run.State {
		status, body, _ := httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/runs/"+id, site.tokens[apitoken.Read], nil)
		var d view.RunDetail
		if status != http.StatusOK || json.Unmarshal(body, &d) != nil {
			t.Fatalf("GET /api/v1/runs/%s: %d %s", id, status, body)
		}
		return d.Run.State
	}
	first := site.runNow(t, c, csrf)
	waitFor(t, "the first Run to hold the slot", 10*time.Second, func() bool { return state(first) == run.Running })
	second := site.runNow(t, c, csrf)
	if s := state(second); s != run.Queued {
		t.Fatalf("the second Run is %s beside the one holding the only slot; want queued", s)
	}

	words := map[string][2]string{"en": {"queued", "running"}, "zh": {"排队中", "运行中"}}
	streams := map[string]*sseStream{}
	for lang, want := range words {
		_, events := site.logStream(t, c, "/runs/"+second+"/log?lang="+lang, "")
		if got := stateOf(t, nextEvent(t, events, "facts", "log", "stopped", "end")); got != (runState{run.Queued, want[0]}) {
			t.Fatalf("%s: the queued Run's stream starts with the state %+v; want queued, said %q", lang, got, want[0])
		}
		streams[lang] = events
	}
	site.cancel(t, c, csrf, first)
	for lang, events := range streams {
		got := runState{State: run.Queued}
		for got.State == run.Queued {
			got = stateOf(t, nextEvent(t, events, "facts", "log", "stopped", "end"))
		}
		if got != (runState{run.Running, words[lang][1]}) {
			t.Fatalf("%s: after the slot freed the stream's facts say %+v; want the Run's new state, running, said %q", lang, got, words[lang][1])
		}
		if e := nextEvent(t, events, "log", "stopped", "end"); e.name != "log" || text(t, e) != "started\n" {
			t.Fatalf("%s: after the state running the stream sent %+v; want the Run's output", lang, e)
		}
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for lang, events := range streams {
		if e := nextEvent(t, events, "log", "stopped", "end"); e.name != "end" || e.data != `"succeeded"` {
			t.Fatalf("%s: once the command finished the stream sent %+v; want its end, succeeded", lang, e)
		}
	}
}

// runState is what a facts event's state line says: the Run's state and
// its words.
type runState struct {
	State run.State
	Text  string
}

// stateLine finds the state line in the facts' HTML.
var stateLine = regexp.MustCompile(`id="run-state" class="[^"]*" data-state="([a-z_]+)">([^<]*)</span>`)

// stateOf is the state line of a "facts" event, failing the test for any
// other event or facts without one.
func stateOf(t *testing.T, e sseEvent) runState {
	t.Helper()
	var html string
	if e.name != "facts" || json.Unmarshal([]byte(e.data), &html) != nil {
		t.Fatalf("the stream sent %+v; want its facts", e)
	}
	m := stateLine.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("the facts %q have no state line", html)
	}
	return runState{run.State(m[1]), m[2]}
}
