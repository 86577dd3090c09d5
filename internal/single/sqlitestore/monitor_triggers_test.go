package sqlitestore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Per-trigger monitoring probes the Runs of each trigger it lists twice,
// each one search of an index keyed by trigger (its newest Run on
// runs_trigger, its latest success on the partial runs_trigger_succeeded)
// and never scans runs: its cost follows the triggers listed, not the
// Runs the store holds. The triggers are walked in name order through the
// unique name indexes of projects and triggers, never sorted, and each
// one's pause is read by its schedule's primary key.
func TestPerTriggerMonitoringSearchesTwoTriggerIndexesAndNeverScansRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := e.queryPlan(t, qMonitorTriggerActivity, 10, schedule.MonitorLimit)
	joined := strings.Join(plan, "\n")
	var newest, success, paused bool
	for _, step := range plan {
		switch {
		case strings.HasPrefix(step, "SCAN l") || strings.HasPrefix(step, "SCAN s ") || strings.HasPrefix(step, "SCAN runs"):
			t.Fatalf("per-trigger monitoring scans runs:\n%s", joined)
		case strings.HasPrefix(step, "USE TEMP B-TREE"):
			t.Fatalf("per-trigger monitoring sorts the catalogue instead of walking it in name order:\n%s", joined)
		case step == "SEARCH l USING INDEX runs_trigger (trigger_id=?)":
			newest = true
		case strings.HasPrefix(step, "SEARCH s USING COVERING INDEX runs_trigger_succeeded (trigger_id=?"):
			success = true
		case step == "SEARCH ps USING INDEX sqlite_autoindex_trigger_schedules_1 (trigger_id=?)":
			paused = true
		}
	}
	if !newest || !success || !paused {
		t.Fatalf("per-trigger monitoring does not search runs_trigger for the newest Run (%v), runs_trigger_succeeded for the latest success (%v) and the schedule's primary key for the pause (%v):\n%s",
			newest, success, paused, joined)
	}
}
