package pgstore

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// An admitted Run enters only the indexes a queued Run is read by: its
// keys, the project's and the trigger's listings, the unfinished Runs'
// indexes (recovery, the trigger's overlap check, the unfinished state
// listings and counts), the queue's and a capped project's (pg-0049: its
// queued probe and slot count). The indexes of finished Runs, the
// finished states' listings among them (pg-0041), get no entry at
// admission: each index's own condition is evaluated on the Runs a round
// admitted, so an index added later that a queued Run enters fails here
// until it is weighed against the admission's cost (BENCHMARKS.md).
func TestAnAdmittedRunEntersOnlyTheIndexesOfAQueuedRun(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const n = 3
	s.admitRuns(t, "entries", n)
	rows, err := s.super.Query(t.Context(), `SELECT c.relname, coalesce(pg_get_expr(i.indpred, i.indrelid), 'true')
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = 'qinglong.runs'::regclass ORDER BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	preds := map[string]string{}
	for rows.Next() {
		var name, pred string
		if err := rows.Scan(&name, &pred); err != nil {
			t.Fatal(err)
		}
		preds[name] = pred
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	var entered []string
	for name, pred := range preds {
		var admitted, in int
		if err := s.super.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE `+pred+`)
			FROM qinglong.runs`).Scan(&admitted, &in); err != nil {
			t.Fatalf("index %s (condition %s): %v", name, pred, err)
		}
		if admitted != n {
			t.Fatalf("%d of the %d admitted Runs are queued", admitted, n)
		}
		if in == n {
			entered = append(entered, name)
		} else if in != 0 {
			t.Fatalf("%d of the %d admitted Runs are in %s (condition %s); want all or none", in, n, name, pred)
		}
	}
	slices.Sort(entered)
	want := []string{
		"runs_idempotency_key", "runs_pkey", "runs_project_listing_idx", "runs_project_slot_idx", "runs_queued_revision_idx",
		"runs_queued_since_idx", "runs_queued_unnoted_idx", "runs_trigger_listing_idx",
		"runs_unfinished_idx", "runs_unfinished_state_idx", "runs_unfinished_trigger_idx",
	}
	if !slices.Equal(entered, want) {
		t.Errorf("an admitted Run enters %d indexes %v; want the %d %v", len(entered), entered, len(want), want)
	}
}

// The unfinished Runs per state that monitoring counts are read from one
// range of runs_unfinished_state_idx per state, cut at the limit: beside
// 20,000 finished Runs and a backlog of queued ones longer than the limit,
// the counts read at most the limit's entries of each state and no
// finished Run.
func TestTheUnfinishedRunCountsReadOnlyTheUnfinishedStateIndex(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "counts", 1)
	s.copyRun(t, "done", "succeeded", 20_000)
	s.copyOneRun(t, "backlog", "queued", 300)
	s.copyOneRun(t, "running", "running", 2)
	s.exec(t, `ANALYZE qinglong.runs`)
	const limit = 100
	snap, err := s.runtime.Monitor(t.Context(), limit)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Runs["queued"] != limit || snap.Runs["running"] != 2 || snap.Runs["dispatching"] != 0 {
		t.Fatalf("unfinished Runs per state %v; want queued cut at %d, running 2, dispatching 0", snap.Runs, limit)
	}
	states := make([]string, len(schedule.UnfinishedStates))
	for i, st := range schedule.UnfinishedStates {
		states[i] = string(st)
	}
	top, plan := explainPlan(t, s.super, "unfinished counts", "EXPLAIN (ANALYZE, FORMAT JSON) "+sqlMonitorRunStates, states, limit)
	var scans []planNode
	top.walk(func(n planNode) {
		if n.Relation == "runs" {
			scans = append(scans, n)
		}
	})
	if len(scans) != 1 {
		t.Fatalf("the counts scan runs %d times; want one scan per state:\n%s", len(scans), plan)
	}
	// EXPLAIN reports a scan's rows and those its filter removed per loop.
	read := (scans[0].ActualRows + scans[0].RemovedByFilter) * scans[0].ActualLoops
	if scans[0].IndexName != "runs_unfinished_state_idx" || scans[0].ActualLoops != float64(len(states)) || read > limit+2 {
		t.Errorf("the counts read %.0f Runs in %.0f scans by %s %s; want at most %d in one range of runs_unfinished_state_idx per state:\n%s",
			read, scans[0].ActualLoops, scans[0].NodeType, scans[0].IndexName, limit+2, plan)
	}
}
