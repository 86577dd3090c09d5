package pgstore

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Runs listing filtered by a state reads at most its page of Runs, for
// every state a user can list, in the whole table and within a project,
// under the plan of its first call and under the generic plan a cached
// statement settles on after five: on an analyzed history of succeeded
// Runs, a finished state with no Run (the console's recent failures, a
// rare state) is a range of runs_finished_state_idx (state, id DESC), or of
// runs_project_finished_state_idx within the project; an unfinished state
// any index of unfinished Runs (none is unfinished yet, and the planner
// costs them alike), and a range of runs_unfinished_state_idx, still only
// its page, once a backlog of queued Runs newer than the history waits
// beside it; the history's own state any pass that stops at the page.
// Never a backward
// pass of runs_pkey, of the project's index or of runs_unfinished_idx
// filtering out the history or the backlog, which the read count catches.
func TestAStateListingReadsOnlyItsPage(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "history", 250)
	s.exec(t, `UPDATE qinglong.runs SET state = 'succeeded', finished_at_ms = created_at_ms + 1`)
	for _, backlog := range []bool{false, true} {
		if backlog {
			s.copyOneRun(t, "backlog", "queued", 250)
		}
		s.exec(t, `ANALYZE qinglong.runs`)
		s.checkStateListings(t, projectID, backlog)
	}
}

// checkStateListings explains every state's listing, in the whole table
// and in project, under both plans, and fails the test for one reading
// more than its page or another index than its own (backlog: whether the
// queued backlog is there, whose own states are then left out).
func (s *store) checkStateListings(t *testing.T, projectID string, backlog bool) {
	t.Helper()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, generic := range []bool{false, true} {
		for _, project := range []string{"", projectID} {
			for _, st := range run.Reachable {
				if backlog && (st == run.Succeeded || st == run.Queued) {
					continue
				}
				p := run.ListParams{ProjectID: project, State: st, Limit: run.DefaultPageSize}
				what := fmt.Sprintf("listing %s (project %q, queued backlog %v, generic plan %v)", st, project, backlog, generic)
				scan, plan := listingScan(t, tx, what, p, generic)
				want := ""
				switch {
				case st == run.Succeeded:
				case st.Finished() && project != "":
					want = "runs_project_finished_state_idx"
				case st.Finished():
					want = "runs_finished_state_idx"
				case backlog:
					want = "runs_unfinished_state_idx"
				}
				read := scan.ActualRows*scan.ActualLoops + scan.RemovedByFilter
				if read > run.DefaultPageSize+1 || (want != "" && scan.IndexName != want) {
					t.Errorf("%s read %.0f Runs by %s %s; want at most its page of %d by %s:\n%s",
						what, read, scan.NodeType, scan.IndexName, run.DefaultPageSize+1, cmp.Or(want, "any index"), plan)
				}
			}
		}
	}
}

// copyOneRun adds n copies in state of the newest Run, each with its own
// idempotency key (prefix-i), as copyRun does for a table of one Run.
func (s *store) copyOneRun(t *testing.T, prefix, state string, n int) {
	t.Helper()
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			$1 || '-' || g, scheduled_for_ms, $2, 2, 2, created_at_ms, queued_at_ms, updated_at_ms
		FROM (SELECT * FROM qinglong.runs ORDER BY id DESC LIMIT 1) r, generate_series(1, $3::int) g`, prefix, state, n)
}

// listingScan explains the listing p and returns its one scan of runs.
// generic explains the generic plan of the prepared statement (which
// PostgreSQL settles on after a few calls), with the arguments as
// literals, since EXPLAIN EXECUTE takes no bound parameters.
func listingScan(t *testing.T, tx pgx.Tx, what string, p run.ListParams, generic bool) (planNode, []byte) {
	t.Helper()
	q, args, err := runListQuery(p, "")
	if err != nil {
		t.Fatal(err)
	}
	explain := "EXPLAIN (ANALYZE, FORMAT JSON) " + q
	if generic {
		lits := make([]string, len(args))
		for i, a := range args {
			switch v := a.(type) {
			case string:
				lits[i] = "'" + v + "'"
			case int:
				lits[i] = strconv.Itoa(v)
			default:
				t.Fatalf("%s: argument %d is a %T", what, i+1, a)
			}
		}
		for _, stmt := range []string{"SET LOCAL plan_cache_mode = force_generic_plan", "PREPARE listing AS " + q} {
			if _, err := tx.Exec(t.Context(), stmt); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		explain, args = "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE listing("+strings.Join(lits, ", ")+")", nil
	}
	top, plan := explainPlan(t, tx, what, explain, args...)
	if generic {
		if _, err := tx.Exec(t.Context(), "DEALLOCATE listing"); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var scans []planNode
	top.walk(func(n planNode) {
		if n.Relation == "runs" {
			scans = append(scans, n)
		}
	})
	if len(scans) != 1 {
		t.Fatalf("%s reads runs %d times:\n%s", what, len(scans), plan)
	}
	return scans[0], plan
}
