package pgstore

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Runs listing filtered by one trigger and a state reads no more Runs as
// that trigger's history grows, for every state a user can list, in the
// table and within the project, under the plan of its first call and under
// the generic plan a cached statement settles on after five: a finished
// state is a range of runs_trigger_finished_state_idx (trigger_id, state,
// id DESC), which reads only its page; an unfinished state is read among
// the unfinished Runs (the trigger's in runs_unfinished_trigger_idx, or the
// state's), never the finished ones. The trigger's Runs of every state but
// succeeded are old (the smallest ids), so a pass of
// runs_trigger_listing_idx filtering the state walks the whole history;
// its 20 sibling triggers in the project hold failed and queued Runs four
// pages long, so a pass of a finished state's index filtering the trigger
// walks theirs. The read count catches either.
func TestATriggersStateListingReadsNoMoreRunsAsItsHistoryGrows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const siblings = 20
	projectID, runIDs := s.admitRuns(t, "trigger-history", 1+siblings)
	triggers := make([]string, 1+siblings)
	for i := range triggers {
		triggers[i] = s.runTrigger(t, runIDs[fmt.Sprintf("t%03d", i)])
	}
	listed := triggers[0]
	s.exec(t, `CREATE TABLE run_templates AS SELECT * FROM qinglong.runs`)
	s.exec(t, `DELETE FROM qinglong.runs`)
	old := 0
	for _, st := range run.Reachable {
		if st != run.Succeeded {
			old++
			s.insertRuns(t, listed, fmt.Sprintf("00000000-0000-7000-8000-%012d", old), string(st), 1)
		}
	}
	for _, sibling := range triggers[1:] {
		s.insertRuns(t, sibling, "", string(run.Failed), run.DefaultPageSize/5)
		s.insertRuns(t, sibling, "", string(run.Queued), run.DefaultPageSize/5)
	}
	history := 0
	for _, size := range []int{10 * run.DefaultPageSize, 100 * run.DefaultPageSize} {
		s.insertRuns(t, listed, "", string(run.Succeeded), size-history)
		history = size
		s.exec(t, `ANALYZE qinglong.runs`)
		s.checkTriggerStateListings(t, projectID, listed, history)
	}
}

// checkTriggerStateListings explains every state's listing within trigger,
// alone and with its project, under both plans, and fails the test for a
// finished state's reading more than its page or, but for the history's
// own state, another index than the trigger's finished states', and for an
// unfinished state's reading more than its page and the unfinished Runs.
func (s *store) checkTriggerStateListings(t *testing.T, projectID, trigger string, history int) {
	t.Helper()
	var unfinished float64
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.runs
		WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')`).Scan(&unfinished); err != nil {
		t.Fatal(err)
	}
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, generic := range []bool{false, true} {
		for _, project := range []string{"", projectID} {
			for _, st := range run.Reachable {
				p := run.ListParams{ProjectID: project, TriggerID: trigger, State: st, Limit: run.DefaultPageSize}
				what := fmt.Sprintf("listing %s within the trigger (project %q, history %d, generic plan %v)", st, project, history, generic)
				scan, plan := listingScan(t, tx, what, p, generic)
				read, budget := scan.ActualRows*scan.ActualLoops+scan.RemovedByFilter, float64(run.DefaultPageSize+1)
				if !st.Finished() {
					budget += unfinished
				}
				if read > budget {
					t.Errorf("%s read %.0f Runs by %s %s; want at most %.0f:\n%s", what, read, scan.NodeType, scan.IndexName, budget, plan)
				}
				if st.Finished() && st != run.Succeeded && scan.IndexName != "runs_trigger_finished_state_idx" {
					t.Errorf("%s read runs by %s %s; want runs_trigger_finished_state_idx:\n%s", what, scan.NodeType, scan.IndexName, plan)
				}
			}
		}
	}
}

// runTrigger is the trigger of the Run runID.
func (s *store) runTrigger(t *testing.T, runID string) string {
	t.Helper()
	var trigger string
	if err := s.super.QueryRow(t.Context(), `SELECT trigger_id FROM qinglong.runs WHERE id = $1`, runID).Scan(&trigger); err != nil {
		t.Fatal(err)
	}
	return trigger
}

// insertRuns adds n Runs of trigger in state, copied from the trigger's
// admitted Run kept in run_templates, with id (n = 1) or random ids (id
// ""), which fall anywhere among the others in id order.
func (s *store) insertRuns(t *testing.T, trigger, id, state string, n int) {
	t.Helper()
	idExpr := "gen_random_uuid()"
	if id != "" {
		idExpr = "'" + id + "'::uuid"
	}
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
		SELECT `+idExpr+`, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			gen_random_uuid()::text, scheduled_for_ms, $2, 2, 2, created_at_ms, queued_at_ms, updated_at_ms,
			CASE WHEN $2 IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost') THEN created_at_ms + 1 END
		FROM run_templates r, generate_series(1, $3::int) g WHERE r.trigger_id = $1`, trigger, state, n)
}
