package singlecli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `ql runs list` lists the most recently created Runs first, as its help
// says, not by SCHEDULED FOR: a backfill's Runs, made after a run now for
// occurrences years before it, come above it.
func TestRunsListIsInCreationOrderAsItsHelpSays(t *testing.T) {
	t.Parallel()
	code, help, _ := ql(t, "runs", "list", "--help")
	if flat := strings.Join(strings.Fields(help), " "); code != 0 || !strings.Contains(flat, "the most recently created (admitted) first") || !strings.Contains(flat, "not their SCHEDULED FOR time") {
		t.Errorf("runs list --help: %d %q; want it to say the order is creation, not SCHEDULED FOR", code, help)
	}
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	if code, out, errOut := ql(t, "triggers", "run", "hourly", "--data-dir", dir); code != 0 {
		t.Fatalf("triggers run: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := ql(t, "triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T01:00:00Z", "--data-dir", dir); code != 0 {
		t.Fatalf("backfill: %d %q %q", code, out, errOut)
	}
	code, out, errOut := ql(t, "runs", "list", "-o", "json", "--data-dir", dir)
	var page struct {
		Runs []struct {
			Origin         string `json:"origin"`
			ScheduledForMs int64  `json:"scheduledForMs"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Runs) != 3 {
		t.Fatalf("runs list: %d %q %q (%v); want three Runs", code, out, errOut, err)
	}
	if page.Runs[0].Origin != "backfill" || page.Runs[1].Origin != "backfill" || page.Runs[2].Origin != "run_now" || page.Runs[0].ScheduledForMs >= page.Runs[2].ScheduledForMs {
		t.Errorf("runs list: %+v; want the backfill's two Runs (scheduled in 2020) above the earlier run now", page.Runs)
	}
}
