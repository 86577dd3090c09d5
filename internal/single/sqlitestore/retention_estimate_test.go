package sqlitestore

import (
	"strings"
	"testing"
)

// The dry run reads each set it counts once: the expired Runs (one search
// of runs_finished), their attempts and events (one probe each per Run)
// and the old logs (one search of attempts_logs), where it used to
// re-read the expired Runs for every count, and the old logs twice, so a
// year of history took minutes.
func TestTheDryRunReadsEachSetItCountsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := strings.Join(e.queryPlan(t, qRetentionEstimate, 1, 2, 3, 1, 4), "\n")
	for _, c := range []struct {
		what, step string
		want       int
	}{
		{"the expired Runs", "SEARCH r USING INDEX runs_finished (finished_at_ms<?)", 1},
		// Once to pass over a Run with an attempt open, once to count.
		{"their attempts", "SEARCH a USING INDEX sqlite_autoindex_attempts_2 (run_id=?)", 2},
		{"their events", "SEARCH e USING COVERING INDEX sqlite_autoindex_run_events_1 (run_id=?)", 1},
		{"the old logs", "SEARCH a USING INDEX attempts_logs (finished_at_ms<?)", 1},
	} {
		if n := strings.Count(plan, c.step); n != c.want {
			t.Errorf("the dry run's plan reads %s %d times, want %d:\n%s", c.what, n, c.want, plan)
		}
	}
}
