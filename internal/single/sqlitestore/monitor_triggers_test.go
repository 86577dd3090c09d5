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
// unique name indexes of projects and triggers, never sorted.
func TestPerTriggerMonitoringSearchesTwoTriggerIndexesAndNeverScansRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := e.queryPlan(t, qMonitorTriggerActivity, 10, schedule.MonitorLimit)
	joined := strings.Join(plan, "\n")
	var newest, success bool
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
		}
	}
	if !newest || !success {
		t.Fatalf("per-trigger monitoring does not search runs_trigger for the newest Run (%v) and runs_trigger_succeeded for the latest success (%v):\n%s", newest, success, joined)
	}
}
