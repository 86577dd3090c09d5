package pgstore

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The Runs that re-run a Run (its page's "re-run as") are a range of the
// index of re-runs, runs_rerun_of_idx, under the plan of a first call and
// under the generic plan a cached statement settles on: never a pass over
// the Runs, however long the history of Runs that are no re-run.
func TestTheReRunsOfARunAreARangeOfTheIndexOfReRuns(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "history", 250)
	s.copyOneRun(t, "more", "succeeded", 2000)
	s.exec(t, `ANALYZE qinglong.runs`)
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	var some string
	if err := tx.QueryRow(t.Context(), `SELECT id::text FROM qinglong.runs LIMIT 1`).Scan(&some); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), "PREPARE rerun_as AS "+sqlRunsRerunAs); err != nil {
		t.Fatal(err)
	}
	for _, generic := range []bool{false, true} {
		what, explain, args := "custom plan", "EXPLAIN (ANALYZE, FORMAT JSON) "+sqlRunsRerunAs, []any{some, run.MaxRerunAs}
		if generic {
			// EXPLAIN EXECUTE takes no bound parameters: literals.
			what, explain, args = "generic plan", fmt.Sprintf("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE rerun_as('%s', %d)", some, run.MaxRerunAs), nil
			if _, err := tx.Exec(t.Context(), "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
				t.Fatal(err)
			}
		}
		top, plan := explainPlan(t, tx, what, explain, args...)
		var scans []planNode
		top.walk(func(n planNode) {
			if n.Relation == "runs" {
				scans = append(scans, n)
			}
		})
		if len(scans) != 1 || scans[0].IndexName != "runs_rerun_of_idx" || scans[0].RemovedByFilter > 0 {
			t.Errorf("the re-runs of a Run (%s) are read by:\n%s\nwant one range of runs_rerun_of_idx", what, plan)
		}
	}
}
