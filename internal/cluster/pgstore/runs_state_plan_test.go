package pgstore

import (
	"cmp"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Runs listing filtered by a state reads at most its page of Runs, for
// every state a user can list: on an analyzed history of succeeded Runs, a
// finished state with no Run (the console's recent failures, a rare state)
// is a range of runs_state_listing_idx (state, id DESC), an unfinished one
// a backward pass of runs_unfinished_idx (which holds only unfinished
// Runs) or that same range of runs_state_listing_idx (the planner costs
// both alike when none is unfinished), and the history's own state any
// pass that stops at the page; never a backward pass of runs_pkey
// filtering out the whole history, which the read count catches.
func TestAStateListingReadsOnlyItsPage(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "history", 250)
	s.exec(t, `UPDATE qinglong.runs SET state = 'succeeded', finished_at_ms = created_at_ms + 1`)
	s.exec(t, `ANALYZE qinglong.runs`)
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, st := range run.Reachable {
		q, args, err := runListQuery(run.ListParams{State: st, Limit: run.DefaultPageSize}, "")
		if err != nil {
			t.Fatal(err)
		}
		top, plan := explainPlan(t, tx, "state listing", "EXPLAIN (ANALYZE, FORMAT JSON) "+q, args...)
		want := ""
		if st.Finished() {
			want = "runs_state_listing_idx"
		}
		if st == run.Succeeded {
			want = ""
		}
		var scans []planNode
		top.walk(func(n planNode) {
			if n.Relation == "runs" {
				scans = append(scans, n)
			}
		})
		if len(scans) != 1 {
			t.Fatalf("listing %s reads runs %d times:\n%s", st, len(scans), plan)
		}
		read := scans[0].ActualRows*scans[0].ActualLoops + scans[0].RemovedByFilter
		if read > run.DefaultPageSize+1 || (want != "" && scans[0].IndexName != want) {
			t.Errorf("listing %s read %.0f Runs by %s %s; want at most its page of %d by %s:\n%s",
				st, read, scans[0].NodeType, scans[0].IndexName, run.DefaultPageSize+1, cmp.Or(want, "any index"), plan)
		}
	}
}
