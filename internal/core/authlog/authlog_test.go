package authlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// lines decodes the JSON lines written to buf.
func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v in %s", err, l)
		}
		out = append(out, m)
	}
	return out
}

// clocked is a Log whose time is *now.
func clocked(buf *bytes.Buffer, now *time.Time) *Log {
	return New(slog.New(slog.NewJSONHandler(buf, nil)), func() time.Time { return *now })
}

// A flood of failures from one client for one reason writes one line a
// minute, the next line saying how many were left out; another reason,
// or another client, has its own line. An IPv6 client is its /64.
func TestFailureLinesAreLimitedToOneAMinutePerClientAndReason(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Unix(1_000_000, 0)
	l := clocked(&buf, &now)
	bad := Event{Surface: SurfaceAPI, Addr: "2001:db8:1:2::1", Reason: "token_unknown"}
	for i := range 1000 {
		bad.Addr = fmt.Sprintf("2001:db8:1:2::%x", i+1)
		l.Failed(bad)
	}
	l.Failed(Event{Surface: SurfaceAPI, Addr: "2001:db8:1:2::1", Reason: "token_expired", Name: "nightly"})
	l.Failed(Event{Surface: SurfaceAPI, Addr: "2001:db8:1:3::1", Reason: "token_unknown"})
	got := lines(t, &buf)
	if len(got) != 3 {
		t.Fatalf("%d lines for 1000 failures of one /64 and one reason, one of another reason and one of another /64; want 3:\n%s", len(got), buf.String())
	}
	buf.Reset()
	now = now.Add(Window)
	l.Failed(bad)
	got = lines(t, &buf)
	if len(got) != 1 || got[0]["code"] != CodeFailed || got[0]["level"] != "INFO" || got[0]["suppressed"] != float64(999) || got[0]["surface"] != "api" || got[0]["reason"] != "token_unknown" {
		t.Fatalf("a minute later: %v; want one INFO %s line with suppressed=999", got, CodeFailed)
	}
}

// However many clients fail, at most LinesPerMinute failure lines are
// written a minute, and at most MaxClients are remembered.
func TestAFloodFromManyClientsWritesBoundedLinesAndMemory(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Unix(1_000_000, 0)
	l := clocked(&buf, &now)
	for minute := range 3 {
		buf.Reset()
		for i := range 10 * MaxClients {
			l.Throttled(Event{Surface: SurfaceConsole, Addr: fmt.Sprintf("2001:db8:%x:%x::1", minute, i), Reason: "address_throttled"})
		}
		if n := len(lines(t, &buf)); n > LinesPerMinute {
			t.Fatalf("minute %d: %d lines from %d clients, over the bound of %d", minute, n, 10*MaxClients, LinesPerMinute)
		}
		if n := len(l.seen); n > MaxClients {
			t.Fatalf("minute %d: %d clients remembered, over the bound of %d", minute, n, MaxClients)
		}
		now = now.Add(Window)
	}
}

// The count of lines left out for a client that never fails again
// reaches the log: carried by the next line of another client once the
// first's minute is over, without a second line for it within the minute.
func TestLinesLeftOutForAClientThatNeverFailsAgainAreCounted(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Unix(1_000_000, 0)
	l := clocked(&buf, &now)
	quiet := Event{Surface: SurfaceConsole, Addr: "192.0.2.7", Name: "olivia", Reason: ReasonPasswordWrong}
	for range 5 {
		l.Failed(quiet)
	}
	now = now.Add(Window / 2)
	l.Failed(Event{Surface: SurfaceConsole, Addr: "192.0.2.8", Reason: ReasonUserUnknown})
	if got := lines(t, &buf); len(got) != 2 {
		t.Fatalf("%d lines before the first client's minute is over, want 2 (no count yet):\n%s", len(got), buf.String())
	}
	buf.Reset()
	now = now.Add(Window)
	l.Failed(Event{Surface: SurfaceConsole, Addr: "192.0.2.9", Reason: ReasonUserUnknown})
	var left map[string]any
	for _, m := range lines(t, &buf) {
		if m["code"] == CodeLeftOut {
			left = m
		}
	}
	if left == nil || left["of"] != CodeFailed || left["suppressed"] != float64(4) || left["addr"] != "192.0.2.7" || left["name"] != "olivia" || left["reason"] != ReasonPasswordWrong || left["surface"] != SurfaceConsole {
		t.Fatalf("%v; want a %s line of %s with suppressed=4 for 192.0.2.7 in:\n%s", left, CodeLeftOut, CodeFailed, buf.String())
	}
	buf.Reset()
	l.Failed(quiet)
	if got := lines(t, &buf); len(got) != 0 {
		t.Fatalf("the quiet client's failure right after its count's line was written: %v, want it left out for a minute", got)
	}
}

// The counts of clients forgotten to keep the memory bounded are summed
// on one line, not lost.
func TestLinesLeftOutForForgottenClientsAreSummed(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Unix(1_000_000, 0)
	l := clocked(&buf, &now)
	for i := range MaxClients {
		e := Event{Surface: SurfaceAPI, Addr: fmt.Sprintf("10.0.%d.%d", i/256, i%256), Reason: "token_unknown"}
		l.Failed(e)
		l.Failed(e)
	}
	// A minute on, no window has ended with its count carried: the next
	// new client forgets them all, and its own line carries their sum.
	now = now.Add(Window)
	buf.Reset()
	l.Failed(Event{Surface: SurfaceAPI, Addr: "192.0.2.1", Reason: "token_unknown"})
	var clients, suppressed float64
	for _, m := range lines(t, &buf) {
		if m["code"] == CodeLeftOut {
			c, _ := m["clients"].(float64)
			n, _ := m["suppressed"].(float64)
			clients, suppressed = clients+max(c, 1), suppressed+n
		}
	}
	// Of MaxClients clients each with one line, LinesPerMinute got theirs
	// at once; every other client's two failures were both left out.
	if want := float64(2*MaxClients - LinesPerMinute); suppressed != want {
		t.Fatalf("%v failures left out reach the log over %v clients, want %v:\n%s", suppressed, clients, want, buf.String())
	}
	if n := len(l.seen); n > MaxClients {
		t.Fatalf("%d clients remembered, over the bound of %d", n, MaxClients)
	}
}
