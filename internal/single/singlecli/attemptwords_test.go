package singlecli

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// attemptRow is the row of attempt 1 in `ql-edge runs show`'s attempts
// table, read with where.
func attemptRow(t *testing.T, id string, where ...string) string {
	t.Helper()
	code, out, errOut := ql(t, append([]string{"runs", "show", id}, where...)...)
	if code != 0 {
		t.Fatalf("runs show: %d %q %q", code, out, errOut)
	}
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "1 ") && strings.Contains(line, "local") {
			return line
		}
	}
	t.Fatalf("runs show printed no row for attempt 1:\n%s", out)
	return ""
}

// A queued Run's attempt, stored claimed, reads "waiting to start" in
// `ql-edge runs show`'s attempts table, from the database and through a
// server's API, and its -o json keeps the state claimed beside the same
// words in stateText, never the bare "claimed" that reads as taken.
// Not parallel: it sets $QL_TOKEN.
func TestAQueuedRunsAttemptReadsWaitingToStartInRunsShowAndItsJSON(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	token := newToken(t, dir, "reader", "read")
	first := queueRun(t, dir, "first")
	base := serveAPI(t, dir, "standalone", "--concurrency", "1", "--cadence", "250ms")
	deadline := time.Now().Add(15 * time.Second)
	for runJSON(t, first, "--data-dir", dir).Run.State != run.Running {
		if time.Now().After(deadline) {
			t.Fatal("the first Run did not run within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := queueRun(t, dir, "second")
	t.Setenv("QL_TOKEN", token)
	for _, where := range [][]string{{"--data-dir", dir}, {"--api-url", base}} {
		if row := attemptRow(t, second, where...); !strings.Contains(row, "  waiting to start  ") || strings.Contains(row, "claimed") {
			t.Errorf("runs show %s: the attempt's row is %q; want it waiting to start, never claimed", where[0], row)
		}
		d := runJSON(t, second, where...)
		if len(d.Attempts) != 1 || d.Attempts[0].State != run.AttemptClaimed || d.Attempts[0].StateText != "waiting to start" {
			t.Errorf("runs show -o json %s: attempts %+v; want one claimed, its stateText waiting to start", where[0], d.Attempts)
		}
	}
	if row := attemptRow(t, first, "--data-dir", dir); !strings.Contains(row, "  running  ") {
		t.Errorf("the running Run's attempt row is %q; want its stored state running", row)
	}
	for _, id := range []string{second, first} {
		if code, out, errOut := ql(t, "runs", "cancel", id, "--data-dir", dir); code != 0 {
			t.Fatalf("cancel: %d %q %q", code, out, errOut)
		}
	}
}
