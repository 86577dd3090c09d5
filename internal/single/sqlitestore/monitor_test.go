package sqlitestore

import (
	"strings"
	"testing"
)

// When the longest-waiting queued Run was queued is one search of the
// partial index of queued Runs: no scan of runs, whatever it holds.
func TestTheOldestQueuedRunIsOneSearchOfTheQueuedIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := e.queryPlan(t, qMonitorOldestQueued)
	joined := strings.Join(plan, "\n")
	if len(plan) != 1 || !strings.HasPrefix(plan[0], "SEARCH runs USING COVERING INDEX runs_queued_since") {
		t.Fatalf("oldest-queued plan is not one search of runs_queued_since:\n%s", joined)
	}
}
