package sqlitestore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A cancel asked after the command had ended, while its result waited for
// the store (a full disk, a held write lock), had nothing to cancel: the
// command's result is recorded, exit code and all, the attempt keeping the
// time its command ended and the Run ending after the cancel's event, so
// its history stays in time order. The same result seen before the cancel
// was asked is what the conformance suite's race covers: there the intent
// wins.
func TestACancelAskedAfterTheCommandEndedLeavesItsResult(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		exit    int64
		attempt run.AttemptState
		run     run.State
		event   string
	}{
		{0, run.AttemptSucceeded, run.Succeeded, run.EventSucceeded},
		{1, run.AttemptFailed, run.Failed, run.EventFailed},
	} {
		e := newEnv(t)
		d := e.defs(t, "alpha", everyMinute)
		runID := e.admit(t, d.Trigger.TriggerID)
		a := e.pending(t, runID)
		if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
			t.Fatal(err)
		}
		if err := e.store.AttemptRunning(t.Context(), a.ID, 4242); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Second)
		ended := e.clock.NowMs()
		e.clock.Advance(time.Second)
		if r, _, err := e.store.CancelRun(t.Context(), runID, "ops"); err != nil || r.State != run.Running {
			t.Fatalf("cancel while the result waits: %+v, %v; want the intent recorded", r, err)
		}
		e.clock.Advance(time.Minute)
		exit := c.exit
		finished, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: c.attempt, ExitCode: &exit, FinishedAtMs: &ended})
		if err != nil || finished != c.run {
			t.Fatalf("exit %d recorded after the cancel: finished %q, %v; want the Run finished %s", c.exit, finished, err, c.run)
		}
		got, err := e.store.RunGet(t.Context(), runID)
		if err != nil {
			t.Fatal(err)
		}
		at := got.Attempts[0]
		if got.Run.State != c.run || at.State != c.attempt || at.ExitCode == nil || *at.ExitCode != c.exit || at.FinishedAtMs == nil || *at.FinishedAtMs != ended {
			t.Fatalf("exit %d: Run %s, attempt %+v; want %s, the attempt %s with its exit code, finished at %d", c.exit, got.Run.State, at, c.run, c.attempt, ended)
		}
		asked, last := got.Events[len(got.Events)-2], got.Events[len(got.Events)-1]
		if asked.Name != run.EventCancelRequested || last.Name != c.event || last.CreatedAtMs < asked.CreatedAtMs || *got.Run.FinishedAtMs != last.CreatedAtMs {
			t.Fatalf("exit %d: events end %s at %d, %s at %d, the Run finished at %d; want the cancel's request, then %s no earlier, the Run's finish",
				c.exit, asked.Name, asked.CreatedAtMs, last.Name, last.CreatedAtMs, *got.Run.FinishedAtMs, c.event)
		}
	}
}
