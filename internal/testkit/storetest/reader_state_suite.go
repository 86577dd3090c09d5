package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// testRunListByState: a listing by state returns exactly the Runs in that
// state, newest first, for every state a user can list, in every project
// or in one, a page at a time: each state is read through an index of its
// own class of Runs (finished or not), which must hold every Run of the
// state and nothing else.
func testRunListByState(t *testing.T, f Fixture) {
	a, b := newDefs(t, f, "alpha", quietCron(t, f)), newDefs(t, f, "beta", quietCron(t, f))
	initialise(t, f)
	type admitted struct {
		id, project string
		state       run.State
	}
	var runs []admitted
	for i, c := range []struct {
		of    defs
		state run.State
	}{
		{a, run.Succeeded}, {b, run.Failed}, {a, run.Failed}, {a, run.TimedOut},
		{b, run.Lost}, {a, run.Cancelled}, {b, run.Queued}, {a, run.Queued},
	} {
		// Older lateness each time, so no two admissions share an
		// occurrence.
		id := admitNow(t, f, c.of.Trigger.TriggerID, int64(20_000-i*1_000))
		runs = append(runs, admitted{id, c.of.Project.ID, c.state})
	}
	ends := map[run.State]run.AttemptState{run.Succeeded: run.AttemptSucceeded, run.Failed: run.AttemptFailed, run.TimedOut: run.AttemptTimedOut, run.Lost: run.AttemptLost}
	for _, r := range runs {
		var err error
		switch r.state {
		case run.Queued:
		case run.Cancelled:
			_, _, err = f.Cancel(t.Context(), r.id, "test")
		default:
			_, err = f.Finish(t.Context(), r.id, ends[r.state])
		}
		if err != nil {
			t.Fatalf("ending %s %s: %v", r.id, r.state, err)
		}
	}
	slices.SortFunc(runs, func(x, y admitted) int { return strings.Compare(y.id, x.id) })
	for _, st := range run.Reachable {
		for _, project := range []string{"", a.Project.ID} {
			var want []string
			for _, r := range runs {
				if r.state == st && (project == "" || r.project == project) {
					want = append(want, r.id)
				}
			}
			var got []string
			p := run.ListParams{State: st, ProjectID: project, Limit: 1}
			for pages := 0; pages <= len(want); pages++ {
				list, next, err := f.Runs.RunList(t.Context(), p)
				if err != nil {
					t.Fatalf("listing %s (project %q): %v", st, project, err)
				}
				for _, r := range list {
					if r.State != st {
						t.Fatalf("listing %s (project %q) returned %s in %s", st, project, r.ID, r.State)
					}
					got = append(got, r.ID)
				}
				if next == "" {
					break
				}
				p.After = next
			}
			if !slices.Equal(got, want) {
				t.Errorf("listing %s (project %q) a Run a page: %v; want %v, newest first", st, project, got, want)
			}
		}
	}
}
