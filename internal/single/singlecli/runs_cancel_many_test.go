package singlecli

import (
	"strings"
	"testing"
)

const cancelFile = `project: demo
tasks:
  - name: slow
    script: sleep 1
triggers:
  - name: nightly
    task: slow
    cron: "0 3 * * *"
    timezone: UTC
  - name: hourly
    task: slow
    cron: "0 * * * *"
    timezone: UTC
`

// runNow makes n queued Runs of trigger (no server runs them).
func runNow(t *testing.T, dir, trigger string, n int) {
	t.Helper()
	for range n {
		if code, _, errOut := ql(t, "triggers", "run", trigger, "--data-dir", dir); code != 0 {
			t.Fatalf("run %s now: %d %s", trigger, code, errOut)
		}
	}
}

// runs cancel --state cancels every Run in the state the filters match,
// each as runs cancel ID would, and leaves every other Run; --dry-run
// counts them and cancels none.
func TestRunsCancelByStateCancelsEveryMatchingRunAndLeavesTheOthers(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, cancelFile)
	runNow(t, dir, "demo/nightly", 3)
	runNow(t, dir, "demo/hourly", 2)
	db := readOnlyDB(t, dir)
	count := func(trigger, state string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM runs r JOIN triggers g ON g.id = r.trigger_id WHERE g.name = ? AND r.state = ?`, trigger, state).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	code, out, errOut := ql(t, "runs", "cancel", "--state", "queued", "--trigger", "demo/nightly", "--dry-run", "--data-dir", dir)
	if code != 0 || out != "would cancel 3 queued runs (nothing was cancelled)\n" || count("nightly", "queued") != 3 {
		t.Fatalf("dry run: %d %q %q; %d still queued", code, out, errOut, count("nightly", "queued"))
	}
	code, out, errOut = ql(t, "runs", "cancel", "--state", "queued", "--trigger", "demo/nightly", "--data-dir", dir)
	if code != 0 || out != "3 queued runs matched: 3 cancelled\n" {
		t.Fatalf("cancel the queued runs of nightly: %d %q %q", code, out, errOut)
	}
	if c, q := count("nightly", "cancelled"), count("hourly", "queued"); c != 3 || q != 2 {
		t.Fatalf("after the cancel: %d of nightly cancelled, %d of hourly queued; want 3 and 2 untouched", c, q)
	}
	if code, out, _ := ql(t, "runs", "cancel", "--state", "queued", "--project", "demo", "--data-dir", dir); code != 0 || out != "2 queued runs matched: 2 cancelled\n" {
		t.Fatalf("cancel the rest of the project's queue: %d %q", code, out)
	}
}

// The filters are refused where they cannot mean what was asked: with a
// run id, without --state, or with a state in which nothing is left to
// cancel, each saying what to give instead.
func TestRunsCancelByStateRefusalsSayWhatToGive(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"0190a4f2-0000-7000-8000-000000000000", "--state", "queued"}, "give a run id or --state/--project/--trigger, not both"},
		{[]string{"--trigger", "demo/nightly"}, "or --state (queued, running or lost) to cancel every Run in it"},
		{[]string{"--state", "succeeded"}, "there is nothing to cancel; use queued, running or lost"},
		{[]string{"0190a4f2-0000-7000-8000-000000000000", "--dry-run"}, "--dry-run goes with --state"},
	} {
		code, _, errOut := ql(t, append(append([]string{"runs", "cancel"}, c.args...), "--data-dir", dir)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("runs cancel %v: %d %q; want exit 2 saying %q", c.args, code, errOut, c.want)
		}
	}
}
