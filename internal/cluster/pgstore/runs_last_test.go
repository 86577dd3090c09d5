package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The newest Run of each trigger is read by one probe of
// runs_trigger_listing_idx per trigger, not by reading a trigger's Runs:
// with 5,000 Runs of one trigger kept, the read of three triggers' newest
// Runs reads at most one Run row per trigger, and answers the newest. Its
// overlap facts are bounded probes too: the newest run.StarvingWindow Runs
// of the same index with a probe of the attempts' run key each, and the
// queued Runs in runs_unfinished_trigger_idx.
func TestTheNewestRunOfATriggerIsOneIndexProbeWhateverItsRunsKept(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "last", 3)
	seeded, err := s.seedFinished(t.Context(), runs["t000"], 5000, time.Now().UnixMilli(), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.exec(t, `ANALYZE qinglong.runs`)
	var triggers []string
	if err := s.super.QueryRow(t.Context(), `SELECT array_agg(DISTINCT trigger_id::text) FROM qinglong.runs`).Scan(&triggers); err != nil || len(triggers) != 3 {
		t.Fatalf("the triggers: %v, %v", triggers, err)
	}
	last, err := s.runtime.RunsLast(t.Context(), triggers)
	if err != nil || len(last) != 3 {
		t.Fatalf("RunsLast: %+v, %v; want the newest Run of each of the three triggers", last, err)
	}
	// The newest is the Run the trigger's Runs listing shows first.
	var t000 string
	if err := s.super.QueryRow(t.Context(), `SELECT trigger_id::text FROM qinglong.runs WHERE id = $1`, seeded[0]).Scan(&t000); err != nil {
		t.Fatal(err)
	}
	first, _, err := s.runtime.RunList(t.Context(), run.ListParams{TriggerID: t000, Limit: 1})
	if err != nil || len(first) != 1 || last[t000].RunID != first[0].ID {
		t.Errorf("RunsLast answers %+v for trigger t000, whose Runs listing shows %+v first (%v)", last[t000], first, err)
	}
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	top, plan := explainPlan(t, tx, "newest runs", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlRunsLast, triggers, run.BacklogCountCap, run.StarvingWindow)
	read := map[string]float64{}
	top.walk(func(n planNode) {
		switch n.Relation {
		case "runs":
			read[n.IndexName] += n.ActualRows * n.ActualLoops
			if n.IndexName != "runs_trigger_listing_idx" && n.IndexName != "runs_unfinished_trigger_idx" && n.IndexName != "runs_project_slot_idx" {
				t.Errorf("the newest Runs' plan reads runs by %s %q; want runs_trigger_listing_idx, runs_unfinished_trigger_idx or (a capped project's Runs holding a slot) runs_project_slot_idx:\n%s", n.NodeType, n.IndexName, plan)
			}
		case "attempts":
			if n.IndexName != "attempts_run_number_key" {
				t.Errorf("the newest Runs' plan reads attempts by %s %q; want attempts_run_number_key:\n%s", n.NodeType, n.IndexName, plan)
			}
		}
	})
	if read["runs_trigger_listing_idx"] == 0 || read["runs_trigger_listing_idx"] > 3*(1+run.StarvingWindow) {
		t.Errorf("the newest Runs' plan reads %v rows of runs_trigger_listing_idx; want at most %d, the newest and the window's of each trigger:\n%s",
			read["runs_trigger_listing_idx"], 3*(1+run.StarvingWindow), plan)
	}
}
