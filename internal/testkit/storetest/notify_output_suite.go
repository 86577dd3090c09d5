package storetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/run"
)

// testNotificationSaysWhatRanAndQuotesOutput: a Run's notifications name
// its task, its last attempt and its command's exit code; a channel with
// output: N quotes the end of the attempt's log as a terminal showed it,
// read in the finishing transaction, and a channel without it quotes
// nothing.
func testNotificationSaysWhatRanAndQuotesOutput(t *testing.T, f Fixture) {
	quoting := notify.Channel{Name: "tail", Kind: notify.Webhook, URL: "http://127.0.0.1:9/tail", Output: 3}
	d := newDefs(t, f, "talkative", quietCron(t, f))
	saveNotifications(t, f, &d, notify.Spec{Channels: []notify.Channel{hook, quoting},
		Rules: []notify.Rule{{On: notify.OnFailed, Channel: hook.Name}, {On: notify.OnFailed, Channel: quoting.Name}}})
	initialise(t, f)

	// More than the stores read of a log's end, over several of a
	// worker's log requests, ending in colours, a progress bar and a
	// blank line.
	var long strings.Builder
	for i := 0; long.Len() < 2*notify.OutputReadBytes; i++ {
		fmt.Fprintf(&long, "line %04d of a long log\n", i)
	}
	long.WriteString("\x1b[31mred\x1b[0m alert\nprogress 10%\rprogress 100%\r\nlast line\n\n")
	cases := []struct {
		output []byte
		want   string
	}{
		{[]byte(long.String()), "red alert\nprogress 100%\nlast line"},
		// A log shorter than what is read is whole: its first line is
		// kept, though no newline precedes it.
		{[]byte("only line"), "only line"},
	}
	for i, c := range cases {
		id := admitNow(t, f, d.Trigger.TriggerID, runFinishedLateMs-int64(10*i))
		if got, err := f.FinishWithOutput(t.Context(), id, run.AttemptFailed, c.output); err != nil || got != run.Failed {
			t.Fatalf("finish run %s failed with output: the Run ended %q (%v)", id, got, err)
		}
		byChannel := map[string]notify.Payload{}
		for _, m := range outbox(t, f) {
			if m.RunID == id {
				byChannel[m.Channel.Name] = m.Payload
			}
		}
		for _, name := range []string{hook.Name, quoting.Name} {
			p, ok := byChannel[name]
			if !ok {
				t.Fatalf("no notification of run %s for channel %s: %+v", id, name, byChannel)
			}
			if p.Task != "job" || p.Attempt != 1 || p.ExitCode == nil || *p.ExitCode != 1 {
				t.Fatalf("channel %s's notification names task %q, attempt %d, exit code %v; want job, 1, 1", name, p.Task, p.Attempt, p.ExitCode)
			}
		}
		if got := byChannel[hook.Name].Output; got != "" {
			t.Fatalf("a channel without output quotes %q, want nothing", got)
		}
		if got := byChannel[quoting.Name].Output; got != c.want {
			t.Fatalf("output: 3 quotes %q, want %q", got, c.want)
		}
	}

	// A command stopped at its timeout exited with no code.
	timedOut := newDefs(t, f, "stopped", quietCron(t, f))
	saveNotifications(t, f, &timedOut, notify.Spec{Channels: []notify.Channel{hook}, Rules: []notify.Rule{{On: notify.OnTimedOut, Channel: hook.Name}}})
	initialise(t, f)
	id := runFinished(t, f, timedOut.Trigger.TriggerID, 0, run.AttemptTimedOut)
	for _, m := range outbox(t, f) {
		if m.RunID == id && (m.Payload.ExitCode != nil || m.Payload.Task != "job" || m.Payload.Attempt != 1) {
			t.Fatalf("the timed-out Run's notification names exit code %v, task %q, attempt %d; want none, job, 1",
				m.Payload.ExitCode, m.Payload.Task, m.Payload.Attempt)
		}
	}
}

// testNotificationLinksToTheRunsPage: a server given the console's address
// adds the Run's page to each delivery of its notifications (the stored
// row stays as the finish wrote it); without one, none is sent.
func testNotificationLinksToTheRunsPage(t *testing.T, f Fixture) {
	var mu sync.Mutex
	var got []notify.Payload
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var p notify.Payload
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("webhook body %s: %v", body, err)
		}
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}))
	defer srv.Close()
	for _, c := range []struct{ project, consoleURL, want string }{
		{"linked", "https://ql.example.com/base/", "https://ql.example.com/base/runs/"},
		{"unlinked", "", ""},
	} {
		m := deliverOnce(t, f, c.project, notify.Channel{Name: "hook", Kind: notify.Webhook, URL: srv.URL + "/" + c.project},
			notify.DeliveryConfig{ConsoleURL: c.consoleURL})
		mu.Lock()
		sent := got[len(got)-1]
		mu.Unlock()
		want := ""
		if c.want != "" {
			want = c.want + m.RunID
		}
		if m.State != notify.Delivered || sent.RunID != m.RunID || sent.Link != want {
			t.Fatalf("%s: notification %s sent with link %q for run %s, want %q", c.project, m.State, sent.Link, sent.RunID, want)
		}
		if m.Payload.Link != "" {
			t.Fatalf("%s: the stored notification holds link %q, want it added at delivery only", c.project, m.Payload.Link)
		}
	}
}
