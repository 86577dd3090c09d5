package server

import (
	"bufio"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// sseEvent is one server-sent event of a run's log stream.
type sseEvent struct {
	id, name, data string
}

// sseStream is a run's log stream as a test reads it: its events, in
// order, and the last ones read, which a wait that fails names.
type sseStream struct {
	events <-chan sseEvent
	seen   []sseEvent
}

// logStream opens a run's log stream with c, sending lastID as
// Last-Event-ID when it is not "", and returns the answer and, when it is
// a stream (200), its events, which end when the stream ends or the test
// does.
func (s *consoleSite) logStream(t *testing.T, c *http.Client, path, lastID string) (*http.Response, *sseStream) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	events := make(chan sseEvent, 64)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		// An event carries up to 1 MiB of output, more as JSON.
		sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
		var e sseEvent
		for sc.Scan() {
			field, value, _ := strings.Cut(sc.Text(), ": ")
			switch field {
			case "id":
				e.id = value
			case "event":
				e.name = value
			case "data":
				e.data = value
			case "":
				if e.name != "" {
					events <- e
				}
				e = sseEvent{}
			}
		}
	}()
	return resp, &sseStream{events: events}
}

// next is the stream's next event but the Run's state and its tables'
// rows (which TestALiveLogSaysInThePagesLanguageWhenItsQueuedRunStarts,
// TestALiveLogSendsTheAttemptsRowsInThePagesLanguageAndZoneAsTheyChange
// and TestALiveLogSendsTheEventsRowsAsTheRunGoesOn read), failing the
// test after 20s.
func next(t *testing.T, s *sseStream) sseEvent {
	t.Helper()
	return nextEvent(t, s, "log", "waiting", "stopped", "end")
}

// seenKept is how many of the last events a stream read a failed wait
// names.
const seenKept = 6

// nextEvent is the stream's next event named one of names, the others
// before it passed over. A stream that ends first, or sends none of them
// within 20s, fails the test naming the events it waited for and the last
// ones the stream sent, so a failure says what came instead.
func nextEvent(t *testing.T, s *sseStream, names ...string) sseEvent {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				t.Fatalf("the log stream ended without a %s event; the last events it sent: %s", oneOf(names), s.last())
			}
			s.seen = append(s.seen, e)
			if len(s.seen) > seenKept {
				s.seen = s.seen[1:]
			}
			if slices.Contains(names, e.name) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event within 20s; the last events the stream sent: %s", oneOf(names), s.last())
		}
	}
}

// oneOf says names as a choice: "log, stopped or end".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// last says the last events read, oldest first, each clipped: a table's
// rows run long.
func (s *sseStream) last() string {
	if len(s.seen) == 0 {
		return "none"
	}
	said := make([]string, len(s.seen))
	for i, e := range s.seen {
		data := []rune(e.data)
		if len(data) > 160 {
			data = append(data[:160], '…')
		}
		said[i] = e.name + " " + string(data)
	}
	return strings.Join(said, " | ")
}

// text is a log event's text.
func text(t *testing.T, e sseEvent) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(e.data), &s); err != nil {
		t.Fatalf("log event %+v: %v", e, err)
	}
	return s
}

// slowOutput is what slowScript prints, in full.
func slowOutput() string {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// Each log event carries the attempt and byte offset its text reaches as
// its id; a stream reconnecting with that id as Last-Event-ID (as a
// browser's EventSource does) goes on from it, so the page shows every
// byte once, in order.
func TestConsoleLogStreamResumesAtTheLastEventIDAndRepeatsNothing(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)

	var shown, lastID string
	resp, events := site.logStream(t, c, "/runs/"+id+"/log", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("log stream: %d", resp.StatusCode)
	}
	for !strings.Contains(shown, "line 2\n") {
		e := next(t, events)
		if e.name != "log" {
			t.Fatalf("the stream sent %+v before the run's output", e)
		}
		shown += text(t, e)
		if lastID = e.id; lastID != "1:"+strconv.Itoa(len(shown)) {
			t.Fatalf("a log event's id is %q after %d bytes; want 1:%d (attempt 1, the offset reached)", lastID, len(shown), len(shown))
		}
	}
	_ = resp.Body.Close()

	resp, events = site.logStream(t, c, "/runs/"+id+"/log", lastID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("log stream resumed at %s: %d", lastID, resp.StatusCode)
	}
	for len(shown) < len("line 1\nline 2\nline 3\nline 4\n") {
		shown += text(t, next(t, events))
	}
	if want := slowOutput(); !strings.HasPrefix(want, shown) {
		t.Fatalf("the page would show %q across the reconnect; want the output once, in order", shown)
	}
}

// A Last-Event-ID the stream never sent is refused with what was wrong
// and what to do, rather than read from the start (the page would show
// its output twice) or from past the log's end (a hole).
func TestConsoleLogStreamRefusesALastEventIDItCouldNotHaveSent(t *testing.T) {
	t.Parallel()
	site, c, csrf := startSignedInConsoleSite(t, apitoken.Operate)
	id := site.runNow(t, c, csrf)
	defer site.cancel(t, c, csrf, id)
	_, events := site.logStream(t, c, "/runs/"+id+"/log", "")
	if e := next(t, events); e.name != "log" {
		t.Fatalf("the stream sent %+v before the run's output", e)
	}
	for _, last := range []string{"garbage", "1", "1:-1", "0:0", "2:0", "1:99999999", "1:x"} {
		resp, _ := site.logStream(t, c, "/runs/"+id+"/log", last)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "is not a position of this log stream") ||
			!strings.Contains(string(body), "reload the page") {
			t.Errorf("Last-Event-ID %q: %d %q; want 400 saying what was wrong and what to do", last, resp.StatusCode, body[max(0, len(body)-1500):])
		}
	}
	if resp, events := site.logStream(t, c, "/runs/"+id+"/log", "1:0"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(text(t, next(t, events)), "line 1\n") {
		t.Fatalf("Last-Event-ID 1:0 answered %d; want the log from its start", resp.StatusCode)
	}
}

// A UTF-8 character the command writes in two pieces, with a pause
// between them, reaches the live log whole: the stream holds a cut
// sequence back until the rest arrives, and its offsets stay the bytes
// it sent.
func TestConsoleLogStreamKeepsAUTF8CharacterSplitAcrossReadsWhole(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		`printf 'A\344'; sleep 2; printf '\270\255B\n'`)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.runNow(t, c, csrf)
	_, events := site.logStream(t, c, "/runs/"+id+"/log", "")
	var shown []string
	sent := 0
	for e := next(t, events); e.name != "end"; e = next(t, events) {
		s := text(t, e)
		shown = append(shown, s)
		sent += len(s)
		if e.id != "1:"+strconv.Itoa(sent) {
			t.Fatalf("log event %q has id %q; want 1:%d, the bytes sent so far", s, e.id, sent)
		}
	}
	if strings.Join(shown, "") != "A中B\n" || len(shown) < 2 {
		t.Fatalf("the live log showed %q; want \"A中B\\n\" in at least two events (the command paused mid-character)", shown)
	}
}

// The live log shows a command's output as the page of its ended Run
// does: a CR LF written in two pieces, with a pause between them, is one
// line's end, not two, and a control character shows as its symbol on
// both.
func TestTheLiveLogShowsTheOutputAsTheEndedRunsPageDoes(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteRunning(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		`printf 'A\r'; sleep 2; printf '\nB\033[0m\n'`)
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.runNow(t, c, csrf)
	_, events := site.logStream(t, c, "/runs/"+id+"/log", "")
	var shown []string
	for e := next(t, events); e.name != "end"; e = next(t, events) {
		shown = append(shown, text(t, e))
	}
	const want = "A\nB␛[0m\n"
	if strings.Join(shown, "") != want || len(shown) < 2 {
		t.Fatalf("the live log showed %q; want %q in at least two events (the command paused mid-line-end)", shown, want)
	}
	waitFor(t, "the Run to end", 10*time.Second, func() bool {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/runs/"+id, nil)
		m := logPre.FindStringSubmatch(page)
		return m != nil && html.UnescapeString(m[2]) == want
	})
}

// A stream catching up with a long log sends it in pieces of at most
// 1 MiB, each event's id the offset its piece reaches, so no stream holds a
// long log in memory at once; the pieces make the whole output.
func TestALogStreamSendsALongLogInPiecesOfAtMostAMiB(t *testing.T) {
	t.Parallel()
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce},
		`yes 'a line of output' | head -c 2500000`, func(cfg *Config) { cfg.LogCapBytes = 4 << 20 })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.endedRun(t, c, csrf)
	_, events := site.logStream(t, c, "/runs/"+id+"/log", "")
	var whole strings.Builder
	pieces := 0
	for e := next(t, events); e.name != "end"; e = next(t, events) {
		s := text(t, e)
		whole.WriteString(s)
		pieces++
		if len(s) > 1<<20 || e.id != "1:"+strconv.Itoa(whole.Len()) {
			t.Fatalf("piece %d holds %d bytes with id %q; want at most 1 MiB, its id 1:%d", pieces, len(s), e.id, whole.Len())
		}
	}
	if want := strings.Repeat("a line of output\n", 2500000/17+1)[:2500000]; whole.String() != want || pieces != 3 {
		t.Fatalf("the stream sent %d bytes in %d pieces; want the 2500000 bytes of output in 3", whole.Len(), pieces)
	}
}

// A running command's output cut at the log cap says so while the command
// still runs, on the fields readers already take it from: the log route
// answers Ql-Log-Truncated: true with the attempt not ended, its bytes the
// kept output and the truncation marker, and the console's live log shows
// the marker where the output was cut, before the Run's end.
func TestARunningCommandsLogCutAtItsCapSaysSoBeforeItEnds(t *testing.T) {
	t.Parallel()
	release := filepath.Join(t.TempDir(), "release")
	script := `head -c 5000 /dev/zero | tr '\0' x; until [ -e ` + release + ` ]; do sleep 0.05; done`
	site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}, script,
		func(c *Config) { c.LogCapBytes = 1024 })
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	id := site.runNow(t, c, csrf)
	want := strings.Repeat("x", 1024) + string(run.TruncationMarker(1024))

	var h http.Header
	var body []byte
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var status int
		status, body, h = httpcall.Bearer(t, http.MethodGet, site.base+"/api/v1/runs/"+id+"/log", site.tokens[apitoken.Read], nil)
		if status == http.StatusOK && string(body) == want && h.Get(view.HeaderLogTruncated) == "true" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log route after 20s: %d, %d bytes ending %q, headers %v; want the kept 1024 bytes and the marker, said truncated",
				status, len(body), body[max(0, len(body)-60):], h)
		}
	}
	if h.Get(view.HeaderAttemptEnded) != "false" || h.Get(view.HeaderRunEnded) != "false" {
		t.Fatalf("the log route said truncated only once the command ended: headers %v", h)
	}

	resp, events := site.logStream(t, c, "/runs/"+id+"/log", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("log stream: %d", resp.StatusCode)
	}
	shown := ""
	for shown != want {
		e := next(t, events)
		if e.name != "log" || !strings.HasPrefix(want, shown+text(t, e)) {
			t.Fatalf("the live log sent %+v after %q; want the kept output and the marker, the run still going", e, shown)
		}
		shown += text(t, e)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if e := next(t, events); e.name != "end" {
		t.Fatalf("after the marker the live log sent %+v; want nothing but the Run's end", e)
	}
}
