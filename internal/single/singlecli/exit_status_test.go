package singlecli

import (
	"path/filepath"
	"strings"
	"testing"
)

// exitStatusFile's tasks succeed, fail, and wait for a release file
// (hold); no trigger fires by itself within a test.
func exitStatusFile(release string) string {
	return `project: wait
tasks:
  - name: ok
    script: echo all good
  - name: bad
    script: echo broken; exit 3
  - name: hold
    script: echo holding; until [ -e ` + release + ` ]; do sleep 0.05; done; echo released
triggers:
  - {name: ok, task: ok, cron: "0 0 1 1 *", timezone: UTC}
  - {name: bad, task: bad, cron: "0 0 1 1 *", timezone: UTC}
  - {name: hold, task: hold, cron: "0 0 1 1 *", timezone: UTC, overlap: skip}
`
}

// runIDOf is the run id a `triggers run` or `runs rerun` report names as
// queued.
func runIDOf(t *testing.T, out string) string {
	t.Helper()
	for _, f := range strings.Fields(out) {
		if len(f) == 36 && strings.Count(f, "-") == 4 && !strings.Contains(out, "request "+f) {
			return f
		}
	}
	t.Fatalf("no run id in %q", out)
	return ""
}

// `runs logs -f --exit-status` exits by how the Run ended: 0 when it
// succeeded, 6 when it did not, after the follower's line saying how;
// without -f it does the same for a Run that has ended and refuses one
// that has not (exit 2, saying to add -f). Without --exit-status the exit
// code is 0 whatever the end, as before.
func TestRunsLogsExitStatusExitsSixUnlessTheRunSucceeded(t *testing.T) {
	t.Parallel()
	held := t.TempDir()
	dir, db := serveDefs(t, exitStatusFile(filepath.Join(held, "release")))
	t.Cleanup(func() { writeFile(t, held, "release", "") })
	run := func(trigger string) string {
		t.Helper()
		code, out, errOut := ql(t, "triggers", "run", trigger, "--data-dir", dir)
		if code != 0 {
			t.Fatalf("triggers run %s: %d %q %q", trigger, code, out, errOut)
		}
		return runIDOf(t, out)
	}
	bad, ok := run("bad"), run("ok")
	code, out, errOut := ql(t, "runs", "logs", "-f", "--exit-status", bad, "--data-dir", dir)
	if code != 6 || out != "broken\n" || !strings.HasPrefix(errOut, "(run "+bad+" ended: failed; attempt 1: failed, exit code 3") {
		t.Fatalf("logs -f --exit-status of a failing Run: exit %d, %q, stderr %q; want 6 after its output and its end", code, out, errOut)
	}
	if code, out, errOut := ql(t, "runs", "logs", "-f", "--exit-status", ok, "--data-dir", dir); code != 0 || out != "all good\n" || !strings.Contains(errOut, "ended: succeeded") {
		t.Fatalf("logs -f --exit-status of a succeeding Run: exit %d, %q, stderr %q; want 0", code, out, errOut)
	}
	// It tells how the whole Run ended, so one attempt's log cannot take
	// it, as the flag's help says.
	if code, out, errOut := ql(t, "runs", "logs", "-f", "--exit-status", "--attempt", "1", bad, "--data-dir", dir); code != 2 || out != "" || !strings.Contains(errOut, "leave out --attempt") {
		t.Fatalf("logs -f --exit-status --attempt 1: exit %d, %q, stderr %q; want 2, saying to leave out --attempt", code, out, errOut)
	}
	if _, help, _ := ql(t, "runs", "logs", "--help"); !strings.Contains(help, "not with --attempt, since it tells how the whole run ended") {
		t.Errorf("runs logs --help %q; want --exit-status's help to say it does not go with --attempt", help)
	}
	if code, out, _ := ql(t, "runs", "logs", "-f", bad, "--data-dir", dir); code != 0 || out != "broken\n" {
		t.Fatalf("logs -f of a failed Run without --exit-status: exit %d, %q; want 0, as before", code, out)
	}
	if code, out, errOut := ql(t, "runs", "logs", "--exit-status", bad, "--data-dir", dir); code != 6 || out != "broken\n" || !strings.Contains(errOut, "ended: failed") {
		t.Fatalf("logs --exit-status of an ended, failed Run: exit %d, %q, stderr %q; want 6 after its log and its end", code, out, errOut)
	}
	if code, _, errOut := ql(t, "runs", "logs", "--exit-status", ok, "--data-dir", dir); code != 0 || !strings.Contains(errOut, "ended: succeeded") {
		t.Fatalf("logs --exit-status of an ended, succeeded Run: exit %d, stderr %q; want 0", code, errOut)
	}
	hold := run("hold")
	runIn(t, db, "running")
	code, out, errOut = ql(t, "runs", "logs", "--exit-status", hold, "--data-dir", dir)
	if code != 2 || out != "" || !strings.Contains(errOut, "has not ended") || !strings.Contains(errOut, "runs logs "+hold+" -f --exit-status") {
		t.Fatalf("logs --exit-status of a running Run without -f: exit %d, %q, stderr %q; want 2, nothing printed, and the command with -f", code, out, errOut)
	}
	// A Run cancelled before it started has no output; its end still
	// decides.
	code, out, errOut = ql(t, "triggers", "run", "hold", "--force", "--data-dir", dir)
	queued := runIDOf(t, out)
	if code != 0 {
		t.Fatalf("triggers run hold --force: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "runs", "cancel", queued, "--data-dir", dir); code != 0 || !strings.Contains(out, "cancelled") {
		t.Fatalf("cancel the queued Run: %d %q %q", code, out, errOut)
	}
	// Its output is empty and complete: no failure without the flag.
	if code, out, errOut := ql(t, "runs", "logs", queued, "--data-dir", dir); code != 0 || out != "" || !strings.Contains(errOut, "attempt 1 ended (cancelled) before it started, so it has no output") {
		t.Fatalf("logs of a Run cancelled before it started: exit %d, %q, stderr %q; want 0, nothing printed, saying it has no output", code, out, errOut)
	}
	code, out, errOut = ql(t, "runs", "logs", "--exit-status", queued, "--data-dir", dir)
	if code != 6 || out != "" || !strings.Contains(errOut, "attempt 1 ended (cancelled) before it started, so it has no output") || !strings.Contains(errOut, "(run "+queued+" ended: cancelled") {
		t.Fatalf("logs --exit-status of a Run cancelled before it started: exit %d, %q, stderr %q; want 6, saying it has no output and how it ended", code, out, errOut)
	}
}
