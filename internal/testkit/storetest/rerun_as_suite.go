package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A Run's detail names the Runs that re-run it, newest first and at most
// run.MaxRerunAs of them, so a lost or failed Run says it was re-run
// already; a re-run of a re-run is named by the Run it repeats, not by the
// first original, and a Run never re-run names none.
func testARunNamesTheRunsThatReRunIt(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	orig := runNow(t, f, schedule.RunNowRequest{TriggerID: d.Trigger.TriggerID, RequestID: "first"})
	if _, err := f.Finish(t.Context(), orig.RunID, run.AttemptLost); err != nil {
		t.Fatalf("finish the original: %v", err)
	}
	if got := runDetail(t, f, orig.RunID).RerunAs; len(got) != 0 {
		t.Fatalf("a Run never re-run names re-runs %v", got)
	}
	var made []string
	for i := range run.MaxRerunAs + 1 {
		res := rerun(t, f, schedule.RerunRequest{RunID: orig.RunID, RequestID: fmt.Sprintf("again-%d", i), Actor: "ops"})
		if _, err := f.Finish(t.Context(), res.RunID, run.AttemptFailed); err != nil {
			t.Fatalf("finish re-run %d: %v", i, err)
		}
		made = append(made, res.RunID)
	}
	newest := slices.Clone(made[1:])
	slices.Reverse(newest)
	if got := runDetail(t, f, orig.RunID).RerunAs; !slices.Equal(got, newest) {
		t.Fatalf("the original names re-runs %v; want the newest %d, newest first: %v", got, run.MaxRerunAs, newest)
	}
	second := rerun(t, f, schedule.RerunRequest{RunID: made[0], RequestID: "of-the-rerun", Actor: "ops"})
	if got := runDetail(t, f, made[0]).RerunAs; !slices.Equal(got, []string{second.RunID}) {
		t.Fatalf("the first re-run names re-runs %v; want the one re-running it, %s", got, second.RunID)
	}
	if got := runDetail(t, f, orig.RunID).RerunAs; slices.Contains(got, second.RunID) {
		t.Fatalf("the original names %s, which re-runs its re-run, not it: %v", second.RunID, got)
	}
}
