package sqlitestore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The newest Run of each trigger is read by a search of runs_trigger per
// trigger (its last id), never a scan of runs: the triggers list pays a
// probe per trigger shown, whatever the number of Runs kept. Its overlap
// facts are bounded searches too: the queued Runs in
// runs_unfinished_trigger, the newest Runs' starts in the attempts' run
// key; the project and its Runs holding a slot by key and index.
func TestTheNewestRunOfATriggerIsOneIndexSearchNotAScan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := strings.Join(e.queryPlan(t, qRunsLast, `["01a23f3a-fc4b-7941-84ad-5c381db0d48f"]`, run.BacklogCountCap, run.StarvingWindow), "\n")
	for _, scan := range []string{"SCAN r", "SCAN l", "SCAN q", "SCAN w", "SCAN c", "SCAN a", "SCAN pr", "SCAN x"} {
		if strings.Contains(plan, scan) {
			t.Errorf("the newest Runs' plan scans runs or attempts (%s):\n%s", scan, plan)
		}
	}
	for _, search := range []string{"USING COVERING INDEX runs_trigger", "SEARCH q USING INDEX runs_unfinished_trigger", "SEARCH a USING INDEX sqlite_autoindex_attempts_2 (run_id=?)"} {
		if !strings.Contains(plan, search) {
			t.Errorf("the newest Runs' plan does not %s:\n%s", search, plan)
		}
	}
}
