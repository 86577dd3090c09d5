package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// The newest Run of each trigger asked for is the one admitted last, with
// its state, scheduled time and finish; a trigger without a Run is absent,
// an empty page is answered empty, and a page past the bound or an id that
// is not one is refused as invalid.
func testRunsLast(t *testing.T, f Fixture) {
	busy := newDefs(t, f, "busy", quietCron(t, f))
	idle := newDefs(t, f, "idle", quietCron(t, f))
	initialise(t, f)
	first := admitNow(t, f, busy.Trigger.TriggerID, 2_000)
	if _, err := f.Finish(t.Context(), first, run.AttemptSucceeded); err != nil {
		t.Fatal(err)
	}
	second := admitNow(t, f, busy.Trigger.TriggerID, 1_000)
	got, err := f.Last.RunsLast(t.Context(), []string{busy.Trigger.TriggerID, idle.Trigger.TriggerID})
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.Runs.RunGet(t.Context(), second)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := got[busy.Trigger.TriggerID]
	if len(got) != 1 || !ok || l.RunID != second || l.State != want.Run.State || l.ScheduledForMs != want.Run.ScheduledForMs || l.FinishedAtMs != nil {
		t.Fatalf("the newest Runs: %+v; want only trigger busy's, the unfinished Run %s (%s, scheduled %d) admitted after the finished %s",
			got, second, want.Run.State, want.Run.ScheduledForMs, first)
	}
	if _, err := f.Finish(t.Context(), second, run.AttemptFailed); err != nil {
		t.Fatal(err)
	}
	if got, err = f.Last.RunsLast(t.Context(), []string{busy.Trigger.TriggerID}); err != nil || got[busy.Trigger.TriggerID].State != run.Failed || got[busy.Trigger.TriggerID].FinishedAtMs == nil {
		t.Fatalf("the newest Run once it failed: %+v, %v; want it failed with its finish", got, err)
	}
	if got, err := f.Last.RunsLast(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("no triggers: %+v, %v; want none and no error", got, err)
	}
	many := make([]string, run.MaxLastTriggers+1)
	for i := range many {
		many[i] = ids.New()
	}
	for what, list := range map[string][]string{"too many triggers": many, "an id that is not one": {"nightly"}} {
		if _, err := f.Last.RunsLast(t.Context(), list); qlerror.CodeOf(err) != qlerror.Invalid {
			t.Errorf("%s: %v, want invalid", what, err)
		}
	}
}
