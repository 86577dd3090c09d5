package sqlitestore

import (
	"strings"
	"testing"
)

// The newest Run of each trigger is read by a search of runs_trigger per
// trigger (its last id), never a scan of runs: the triggers list pays a
// probe per trigger shown, whatever the number of Runs kept.
func TestTheNewestRunOfATriggerIsOneIndexSearchNotAScan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := strings.Join(e.queryPlan(t, qRunsLast, `["01a23f3a-fc4b-7941-84ad-5c381db0d48f"]`), "\n")
	if strings.Contains(plan, "SCAN r") || strings.Contains(plan, "SCAN l") || !strings.Contains(plan, "USING COVERING INDEX runs_trigger") {
		t.Errorf("the newest Runs' plan scans runs or does not search runs_trigger:\n%s", plan)
	}
}
