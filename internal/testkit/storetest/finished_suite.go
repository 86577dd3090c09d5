package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// RunFinished runs the finish reports' contract against an adapter: the
// store operation that moves a Run from unfinished to finished says so,
// and one that finds it finished already — a repeated completion, a
// second sweep, a cancel after the end — says nothing, so that a server
// counting the reports (qinglong_runs_finished_total) counts each Run once.
func RunFinished(t *testing.T, newFixture Factory) {
	tests := map[string]func(*testing.T, Fixture){
		"AFinishIsReportedOnceHoweverOftenItIsApplied":  testFinishReportedOnce,
		"ACancelIsReportedOnlyByTheCallThatEndedTheRun": testCancelReportedOnce,
		"ACancelAfterTheEndReportsNothing":              testCancelAfterTheEnd,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t))
		})
	}
}

// finishedAs is the Run state each attempt end the fixture can make
// finishes a Run in (no retry follows on the suite's tasks).
var finishedAs = map[run.AttemptState]run.State{
	run.AttemptSucceeded: run.Succeeded,
	run.AttemptFailed:    run.Failed,
	run.AttemptTimedOut:  run.TimedOut,
	run.AttemptLost:      run.Lost,
}

// Each end, applied twice: the first call reports the Run finished in its
// state, the repeat reports nothing (an answer, or a refusal saying the
// attempt already ended) and writes nothing.
func testFinishReportedOnce(t *testing.T, f Fixture) {
	for end, want := range finishedAs {
		t.Run(string(end), func(t *testing.T) {
			d := newDefs(t, f, "finish-"+string(end), quietCron(t, f))
			initialise(t, f)
			id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
			got, err := f.Finish(t.Context(), id, end)
			if err != nil || got != want {
				t.Fatalf("finish %s: reports %q, %v; want the Run finished %s", end, got, err, want)
			}
			before := counts(t, f, d.Trigger.TriggerID)
			again, err := f.FinishAgain(t.Context(), id)
			if err != nil && !qlerror.Is(err, qlerror.FailedPrecondition) {
				t.Fatalf("the repeat of finish %s: %v; want an answer or a refusal of the ended attempt", end, err)
			}
			if again != "" {
				t.Fatalf("the repeat of finish %s reports the Run finished %s again", end, again)
			}
			if r := runByID(t, f, id); r.State != want {
				t.Fatalf("the Run is %s after the repeat, want %s", r.State, want)
			}
			if after := counts(t, f, d.Trigger.TriggerID); after != before {
				t.Fatalf("counts %+v after the repeat, %+v before; want nothing written", after, before)
			}
		})
	}
}

// A queued Run cancelled twice: the first call finished it, the second
// finds it cancelled.
func testCancelReportedOnce(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	r, eff, err := f.Cancel(t.Context(), id, "test")
	if err != nil || eff != (run.CancelEffect{Finished: true}) || r.State != run.Cancelled {
		t.Fatalf("cancel of a queued Run: %s, effect %+v, %v; want it cancelled and reported finished", r.State, eff, err)
	}
	r, eff, err = f.Cancel(t.Context(), id, "test")
	if err != nil || eff != (run.CancelEffect{}) || r.State != run.Cancelled {
		t.Fatalf("second cancel: %s, effect %+v, %v; want it cancelled and nothing reported again", r.State, eff, err)
	}
}

// A cancel that comes after the end (it raced the completion and lost)
// finishes nothing, and neither does one that closes a lost Run: it
// finished when it was found lost.
func testCancelAfterTheEnd(t *testing.T, f Fixture) {
	for _, end := range []run.AttemptState{run.AttemptFailed, run.AttemptLost} {
		t.Run(string(end), func(t *testing.T) {
			d := newDefs(t, f, "cancel-"+string(end), quietCron(t, f))
			initialise(t, f)
			id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
			if _, err := f.Finish(t.Context(), id, end); err != nil {
				t.Fatalf("finish %s: %v", end, err)
			}
			r, eff, err := f.Cancel(t.Context(), id, "test")
			if err != nil || eff.Finished {
				t.Fatalf("cancel after %s: %s, effect %+v, %v; want nothing reported finished", end, r.State, eff, err)
			}
		})
	}
}
