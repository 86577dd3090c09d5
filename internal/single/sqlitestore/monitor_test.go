package sqlitestore

import (
	"strings"
	"testing"
)

// When the longest-waiting queued Runs were queued, backfilled and other,
// is one search each of the partial index of queued Runs, in its order: no
// scan of runs and no sort, whatever it holds.
func TestTheOldestQueuedRunIsOneSearchOfTheQueuedIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := e.queryPlan(t, qMonitorOldestQueued)
	joined := strings.Join(plan, "\n")
	searches := 0
	for _, line := range plan {
		switch {
		case strings.HasPrefix(line, "SEARCH runs USING COVERING INDEX runs_queued_since (backfilled=?)"):
			searches++
		case strings.HasPrefix(line, "SEARCH"), strings.HasPrefix(line, "SCAN runs"), strings.Contains(line, "TEMP B-TREE"):
			t.Fatalf("oldest-queued plan reads otherwise than through runs_queued_since:\n%s", joined)
		}
	}
	if searches != 2 {
		t.Fatalf("oldest-queued plan is not one search of runs_queued_since per half:\n%s", joined)
	}
}
