package sqlitestore

import (
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Runs listing filtered by a state reads that state's range of an index
// holding only its class of Runs (finished or not), never a pass over the
// primary key or a project's whole history: its cost does not grow with a
// history of other states, for every state a user can list, alone or with
// a project, a cursor or a window.
func TestAStateListingSearchesAnIndexOfItsState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const someID = "01a23f3a-fc4b-7941-84ad-5c381db0d48f"
	for _, st := range run.Reachable {
		for name, p := range map[string]run.ListParams{
			"state":          {State: st},
			"state, cursor":  {State: st, After: someID},
			"state, window":  {State: st, FromMs: 1_700_000_000_000, ToMs: 1_800_000_000_000},
			"project, state": {State: st, ProjectID: someID},
		} {
			want := "runs_unfinished_state (state=?"
			switch {
			case st.Finished() && p.ProjectID != "":
				want = "runs_project_finished_state (project_id=? AND state=?"
			case st.Finished():
				want = "runs_finished_state (state=?"
			}
			q, args := runListQuery(p, run.DefaultPageSize)
			plan := strings.Join(e.queryPlan(t, q, args...), "\n")
			// The page's ids, then its Runs by id (runListPage).
			if !regexp.MustCompile(`SEARCH runs USING (COVERING )?INDEX `+regexp.QuoteMeta(want)).MatchString(plan) || strings.Contains(plan, "SCAN runs") {
				t.Errorf("%s listing of %s: the plan does not search %s) for its page:\n%s", name, st, want, plan)
			}
		}
	}
}

// A Runs listing of one trigger filtered by a state reads that trigger's
// range of an index holding only its class of Runs — the trigger's
// finished Runs of the state, or its few unfinished Runs — never the
// trigger's whole history: its cost does not grow with the trigger's Runs
// of other states, alone or with the trigger's project, a cursor or a
// window.
func TestATriggersStateListingSearchesAnIndexOfThatTriggersState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const someID = "01a23f3a-fc4b-7941-84ad-5c381db0d48f"
	for _, st := range run.Reachable {
		for name, p := range map[string]run.ListParams{
			"trigger, state":          {TriggerID: someID, State: st},
			"trigger, state, cursor":  {TriggerID: someID, State: st, After: someID},
			"trigger, state, window":  {TriggerID: someID, State: st, FromMs: 1_700_000_000_000, ToMs: 1_800_000_000_000},
			"project, trigger, state": {ProjectID: someID, TriggerID: someID, State: st},
		} {
			want := "runs_unfinished_trigger (trigger_id=?"
			if st.Finished() {
				want = "runs_trigger_finished_state (trigger_id=? AND state=?"
			}
			q, args := runListQuery(p, run.DefaultPageSize)
			plan := strings.Join(e.queryPlan(t, q, args...), "\n")
			if !regexp.MustCompile(`SEARCH runs USING (COVERING )?INDEX `+regexp.QuoteMeta(want)).MatchString(plan) || strings.Contains(plan, "SCAN runs") {
				t.Errorf("%s listing of %s: the plan does not search %s) for its page:\n%s", name, st, want, plan)
			}
		}
	}
}
