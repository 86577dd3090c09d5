package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// heldSlotScript prints a line, then runs until the file release names
// exists: with --concurrency 1 its first Run holds the only slot, and a
// second waits queued until the first is cancelled.
func heldSlotScript(release string) string {
	return `echo started; until [ -e ` + release + ` ]; do sleep 0.05; done`
}

// heldSlot is a console site serving one Run at a time (--concurrency 1)
// whose first Run holds the slot and whose second waits queued behind it,
// with an operator's client; writing the file release names ends the
// first Run's command (the second's too, once it runs).
type heldSlot struct {
	site          *consoleSite
	c             *http.Client
	csrf          string
	first, second string
	release       string
}

// holdTheOnlySlot starts a heldSlot whose client shows times in zone (the
// ql_tz cookie; "" leaves the server's).
func holdTheOnlySlot(t *testing.T, zone string) heldSlot {
	t.Helper()
	h := heldSlot{release: filepath.Join(t.TempDir(), "release")}
	h.site = startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		heldSlotScript(h.release), func(c *Config) { c.Concurrency = 1 })
	h.c = consoleClient(t)
	h.csrf = h.site.signIn(t, h.c, h.site.tokens[apitoken.Operate])
	if zone != "" {
		u, _ := url.Parse(h.site.base)
		h.c.Jar.SetCookies(u, []*http.Cookie{{Name: "ql_tz", Value: zone, Path: "/"}})
	}
	h.first = h.site.runNow(t, h.c, h.csrf)
	waitFor(t, "the first Run to hold the slot", 10*time.Second, func() bool { return h.site.runDetail(t, h.first).Run.State == run.Running })
	h.second = h.site.runNow(t, h.c, h.csrf)
	if s := h.site.runDetail(t, h.second).Run.State; s != run.Queued {
		t.Fatalf("the second Run is %s beside the one holding the only slot; want queued", s)
	}
	return h
}

// releaseSlot ends the commands held by the slot.
func (h heldSlot) releaseSlot(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(h.release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A queued Run's live log says the Run's state as it goes on, in the words
// of the page's state line in the page's language, among the facts it
// sends: the state it starts with (queued), then running once the Run
// starts, ahead of its output, so a page shown while the Run waited stops
// saying it is queued without loading again; the end carries the final
// state, as before.
func TestALiveLogSaysInThePagesLanguageWhenItsQueuedRunStarts(t *testing.T) {
	t.Parallel()
	h := holdTheOnlySlot(t, "")

	words := map[string][2]string{"en": {"queued", "running"}, "zh": {"排队中", "运行中"}}
	streams := map[string]*sseStream{}
	for lang, want := range words {
		_, events := h.site.logStream(t, h.c, "/runs/"+h.second+"/log?lang="+lang, "")
		if got := stateOf(t, nextEvent(t, events, "facts", "log", "stopped", "end")); got != (runState{run.Queued, want[0]}) {
			t.Fatalf("%s: the queued Run's stream starts with the state %+v; want queued, said %q", lang, got, want[0])
		}
		streams[lang] = events
	}
	h.site.cancel(t, h.c, h.csrf, h.first)
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
	h.releaseSlot(t)
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
