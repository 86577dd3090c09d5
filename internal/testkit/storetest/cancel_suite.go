package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// Cancelling a Run that already ended changes nothing and is no error:
// the Run comes back as it ended, with no new event, so asking twice (or
// after the command finished on its own) tells the caller what it became.
func testCancelOfAnEndedRunReturnsItAsItIs(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	if _, err := f.Finish(t.Context(), id, run.AttemptSucceeded); err != nil {
		t.Fatalf("finish: %v", err)
	}
	before := counts(t, f, d.Trigger.TriggerID)
	r, _, err := f.Cancel(t.Context(), id, "test")
	if err != nil || r.State != run.Succeeded {
		t.Fatalf("cancel of a succeeded Run: %+v, %v; want it returned succeeded, no error", r, err)
	}
	if after := counts(t, f, d.Trigger.TriggerID); after != before {
		t.Fatalf("counts %+v after the cancel, %+v before; want nothing written", after, before)
	}
}

// A lost Run (its attempt ended without an outcome and no retry is left)
// is not finished, so a cancel closes it: cancelled, with run.cancelled
// naming who asked, and its attempt stays lost. The cancel says it closed
// a lost Run (`ql runs cancel` says so, not "already cancelled"); asked
// again, it says it did nothing.
func testCancelOfALostRunClosesItCancelled(t *testing.T, f Fixture) {
	d := newDefs(t, f, "alpha", quietCron(t, f))
	initialise(t, f)
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	if _, err := f.Finish(t.Context(), id, run.AttemptLost); err != nil {
		t.Fatalf("lose the Run: %v", err)
	}
	if r := runByID(t, f, id); r.State != run.Lost {
		t.Fatalf("the Run is %s, want lost before the cancel", r.State)
	}
	r, eff, err := f.Cancel(t.Context(), id, "ops")
	if err != nil || r.State != run.Cancelled || eff != (run.CancelEffect{ClosedLost: true}) {
		t.Fatalf("cancel of a lost Run: %+v, effect %+v, %v; want it cancelled, reported closed lost (not finished)", r, eff, err)
	}
	if _, again, err := f.Cancel(t.Context(), id, "ops"); err != nil || again != (run.CancelEffect{}) {
		t.Fatalf("second cancel of the closed lost Run: effect %+v, %v; want nothing reported", again, err)
	}
	got, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if last := got.Events[len(got.Events)-1]; last.Name != run.EventCancelled {
		t.Fatalf("last event %+v, want run.cancelled", last)
	}
	if n := len(got.Attempts); n != 1 || got.Attempts[0].State != run.AttemptLost {
		t.Fatalf("attempts %+v, want the one lost attempt unchanged", got.Attempts)
	}
}
