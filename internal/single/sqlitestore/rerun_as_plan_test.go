package sqlitestore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The Runs that re-run a Run (its page's "re-run as") are a search of the
// index of re-runs by rerun_of, never a pass over every Run: a Run's page
// costs the same however long the history.
func TestTheReRunsOfARunAreSearchedInTheIndexOfReRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := strings.Join(e.queryPlan(t, qRunsRerunAs, "01a23f3a-fc4b-7941-84ad-5c381db0d48f", run.MaxRerunAs), "\n")
	if !strings.Contains(plan, "SEARCH runs USING COVERING INDEX runs_rerun_of (rerun_of=?)") || strings.Contains(plan, "SCAN runs") {
		t.Fatalf("the re-runs of a Run are read by:\n%s\nwant a search of runs_rerun_of by rerun_of", plan)
	}
}
