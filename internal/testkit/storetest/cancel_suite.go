package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Cancelling a Run that already ended changes nothing and is no error:
// the Run comes back as it ended, with no new event, so asking twice (or
// after the command finished on its own) tells the caller what it became.
func testCancelOfAnEndedRunReturnsItAsItIs(t *testing.T, f Fixture) {
	d := initialisedDefs(t, f, "alpha")
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
	d := initialisedDefs(t, f, "alpha")
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

// A cancel asked of a running Run races the command's own end: the
// command may exit (or time out, or lose its runner) before its runner
// hears the cancel. The intent wins on every store: the Run ends
// cancelled, with no retry although its policy lists the outcome, and a
// command that exited on its own keeps its exit code on an attempt ended
// cancelled with error code cancelled (a lost attempt stays lost: nobody
// knows how its command ended).
func testCancelAskedBeforeTheCommandsOwnEndWins(t *testing.T, f Fixture) {
	every := []string{task.RetryOnFailed, task.RetryOnTimedOut, task.RetryOnLost}
	for _, end := range []run.AttemptState{run.AttemptSucceeded, run.AttemptFailed, run.AttemptTimedOut, run.AttemptLost} {
		d := retryDefs(t, f, "race-"+string(end), task.RetryPolicy{MaxAttempts: 3, BackoffMs: retryBackoff.Milliseconds(), On: every}, trigger.OverlapAllow)
		id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
		ask := func(ctx context.Context) error {
			r, eff, err := f.Cancel(ctx, id, "ops")
			if err != nil || r.State != run.Running || eff != (run.CancelEffect{}) {
				t.Errorf("%s: cancel of the running Run: %+v, effect %+v, %v; want the intent recorded, the Run still running", end, r, eff, err)
			}
			return err
		}
		finished, err := f.FinishAfter(t.Context(), id, end, ask)
		if err != nil || finished != run.Cancelled {
			t.Fatalf("%s after the cancel was asked: finished %q, %v; want the Run finished cancelled", end, finished, err)
		}
		got, err := f.Runs.RunGet(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Run.State != run.Cancelled || len(got.Attempts) != 1 {
			t.Fatalf("%s: Run %s with %d attempts, want cancelled with its one attempt (no retry after a cancel)", end, got.Run.State, len(got.Attempts))
		}
		if last := got.Events[len(got.Events)-1]; last.Name != run.EventCancelled {
			t.Fatalf("%s: last event %+v, want run.cancelled", end, last)
		}
		a := got.Attempts[0]
		switch end {
		case run.AttemptSucceeded, run.AttemptFailed:
			want := int64(0)
			if end == run.AttemptFailed {
				want = 1
			}
			if a.State != run.AttemptCancelled || a.ErrorCode != run.ErrorCodeCancelled || a.ExitCode == nil || *a.ExitCode != want {
				t.Fatalf("%s: attempt %s, error code %q, exit code %v; want cancelled, %q, the command's own exit code %d", end, a.State, a.ErrorCode, a.ExitCode, run.ErrorCodeCancelled, want)
			}
		case run.AttemptLost:
			if a.State != run.AttemptLost {
				t.Fatalf("%s: attempt %s, want it lost (how its command ended is unknown)", end, a.State)
			}
		}
	}
}

// A cancel asked once the attempt's deadline had passed finds the command
// timed out already (run.CancelCameFirst): the attempt and its Run end
// timed_out, the Run's end event says so (run.timed_out, outcome
// timed_out), and no retry follows although the policy lists timed_out —
// the cancel still says the Run should not go on. On PostgreSQL the lease
// sweep ends it, the worker having vanished; on SQLite the executor's
// result does.
func testCancelAskedAfterTheDeadlinePassedLeavesTheRunTimedOut(t *testing.T, f Fixture) {
	d := retryDefs(t, f, "late-cancel", task.RetryPolicy{MaxAttempts: 3, BackoffMs: retryBackoff.Milliseconds(), On: []string{task.RetryOnTimedOut}}, trigger.OverlapAllow)
	id := admitNow(t, f, d.Trigger.TriggerID, 1_000)
	late := func(ctx context.Context) error {
		if err := f.PassDeadline(ctx, id); err != nil {
			return err
		}
		f.Elapse(2 * time.Millisecond)
		_, _, err := f.Cancel(ctx, id, "ops")
		return err
	}
	finished, err := f.FinishAfter(t.Context(), id, run.AttemptTimedOut, late)
	if err != nil || finished != run.TimedOut {
		t.Fatalf("timed out after a cancel asked past the deadline: finished %q, %v; want the Run finished timed_out", finished, err)
	}
	got, err := f.Runs.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Run.State != run.TimedOut || len(got.Attempts) != 1 {
		t.Fatalf("Run %s with %d attempts, want timed_out with its one attempt (no retry after a cancel)", got.Run.State, len(got.Attempts))
	}
	if a := got.Attempts[0]; a.State != run.AttemptTimedOut || a.ErrorCode == run.ErrorCodeCancelled {
		t.Fatalf("attempt %s, error code %q; want timed_out with the timeout's own code", a.State, a.ErrorCode)
	}
	last := got.Events[len(got.Events)-1]
	var payload map[string]any
	if err := json.Unmarshal([]byte(last.Payload), &payload); err != nil || last.Name != run.EventTimedOut || payload["outcome"] != string(run.AttemptTimedOut) {
		t.Fatalf("last event %s %v, want run.timed_out with outcome timed_out", last.Name, last.Payload)
	}
}
