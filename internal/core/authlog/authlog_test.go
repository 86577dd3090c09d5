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
