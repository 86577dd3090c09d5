package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// records decodes the JSON log lines in logs that carry code.
func records(t *testing.T, logs, code string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["code"] == code {
			out = append(out, rec)
		}
	}
	return out
}

// A worker that stays cut off says so again while the outage lasts, each
// time with how long it has lasted, but never twice within the repeat
// interval however many of its requests fail meanwhile.
func TestACutOffWorkerSaysSoAgainAtMostOncePerRepeatInterval(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	const repeat = 700 * time.Millisecond
	w := runAgent(t, in, func(c *Config) { c.unreachableRepeat = repeat })
	waitFor(t, "the worker to register", func() bool { return strings.Contains(w.logs.String(), `"code":"worker_registered"`) })
	in.srv.Close()
	time.Sleep(4 * time.Second)

	lines := records(t, w.logs.String(), "server_unreachable")
	if len(lines) < 2 {
		t.Fatalf("%d warnings in 4 s of outage; want the first and at least one repeat:\n%s", len(lines), w.logs)
	}
	var last time.Time
	for i, rec := range lines {
		at, err := time.Parse(time.RFC3339Nano, rec["time"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && at.Sub(last) < repeat {
			t.Fatalf("warnings %d and %d are %s apart; want at least %s:\n%s", i, i+1, at.Sub(last), repeat, w.logs)
		}
		last = at
		if rec["server"] != in.srv.URL || rec["retry_every_ms"] != float64(2000) || !networkCause(rec["error"].(string)) {
			t.Fatalf("warning %d is %v; want the server, the cause and the retry interval", i+1, rec)
		}
		if i > 0 && (rec["unreachable_for_ms"] == nil || rec["failed_requests"] == nil) {
			t.Fatalf("repeated warning %v; want how long the outage has lasted and how many requests failed", rec)
		}
	}
	if failed := lines[len(lines)-1]["failed_requests"].(float64); int(failed) <= len(lines) {
		t.Fatalf("%v failed requests and %d warnings; want fewer warnings than failures", failed, len(lines))
	}
	if strings.Contains(w.logs.String(), in.credential) {
		t.Fatal("the worker's log holds its credential")
	}
}

// networkCause reports whether msg names why the replica did not answer.
// The first failure is not always a refused connection: the long poll the
// worker had open when the server closed ends with the connection reset
// (or cut off mid-answer), and later requests are refused.
func networkCause(msg string) bool {
	for _, cause := range []string{"connection refused", "connection reset", "EOF"} {
		if strings.Contains(msg, cause) {
			return true
		}
	}
	return false
}

// The first warning of a worker cut off from its replicas says in words
// how long it pauses between tries, not only in a field the message
// named by its key.
func TestACutOffWorkerSaysHowLongItPausesBetweenTries(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	w := runAgent(t, in, nil)
	waitFor(t, "the worker to register", func() bool { return strings.Contains(w.logs.String(), `"code":"worker_registered"`) })
	in.srv.Close()
	waitFor(t, "the worker to say it is cut off", func() bool { return strings.Contains(w.logs.String(), `"code":"server_unreachable"`) })
	msg, _ := records(t, w.logs.String(), "server_unreachable")[0]["msg"].(string)
	if !strings.Contains(msg, "pausing up to 2s between tries") || strings.Contains(msg, "retry_every_ms") {
		t.Fatalf("the worker's first warning says %q; want it to say it pauses up to 2s between tries", msg)
	}
}
