package singlecli

import (
	"strings"
	"testing"
)

// The text of `runs show` and `runs list` says what made a Run, as -o
// json's origin does: a backfill's Run reads backfill, a run now's
// run_now; a Run not lost has no error code.
func TestRunsShowAndListSayWhatMadeEachRun(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, napFile)
	if code, out, errOut := ql(t, "triggers", "backfill", "slow/yearly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T00:00:00Z", "--data-dir", dir); code != 0 {
		t.Fatalf("backfill: %d %q %q", code, out, errOut)
	}
	now := queueRun(t, dir, "now")
	code, out, errOut := ql(t, "runs", "list", "--data-dir", dir)
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(rows) != 3 || !strings.HasSuffix(rows[0], " ORIGIN    ERROR") || !strings.HasPrefix(rows[1], now+" ") ||
		!strings.HasSuffix(rows[1], " run_now   -") || !strings.HasSuffix(rows[2], " backfill  -") {
		t.Fatalf("runs list: %d %q %q; want the run now's row saying run_now, the backfill's saying backfill, neither an error", code, out, errOut)
	}
	backfilled := strings.Fields(rows[2])[0]
	for id, origin := range map[string]string{now: "run_now", backfilled: "backfill"} {
		if code, out, errOut := ql(t, "runs", "show", id, "--data-dir", dir); code != 0 || !strings.Contains(out, "\norigin     "+origin+"\n") {
			t.Fatalf("runs show %s: %d %q %q; want the line origin %s", id, code, out, errOut, origin)
		}
	}
}
