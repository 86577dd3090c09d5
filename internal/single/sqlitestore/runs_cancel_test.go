package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

func TestCancellingAQueuedRunEndsItAtOnceAndNoDispatcherStartsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	runID := e.admit(t, d.Trigger.TriggerID)
	a := e.pending(t, runID)
	r, eff, err := e.store.CancelRun(t.Context(), runID, "test")
	if err != nil || r.State != run.Cancelled || r.FinishedAtMs == nil || !eff.Finished {
		t.Fatalf("cancel a queued run: %+v, effect %+v, %v; want it cancelled by this call with a finish time", r, eff, err)
	}
	got, err := e.store.RunGet(t.Context(), runID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Attempts[0].State != run.AttemptCancelled || got.Attempts[0].FinishedAtMs == nil {
		t.Fatalf("attempt %+v; want cancelled", got.Attempts[0])
	}
	want := []string{run.EventCreated, run.EventQueued, run.EventCancelled}
	if names := eventNames(got); !equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("a dispatcher starting the cancelled attempt: %v; want a conflict", err)
	}
	// The repeat must not report that it ended the Run: `ql runs cancel`
	// says "already cancelled" from this alone.
	again, eff, err := e.store.CancelRun(t.Context(), runID, "test")
	if err != nil || again.State != run.Cancelled || again.Version != r.Version || eff != (run.CancelEffect{}) {
		t.Fatalf("cancel again: %+v, effect %+v, %v; want the run unchanged and not finished by this call", again, eff, err)
	}
}

func TestCancellingARunningLocalRunRecordsOneIntentForItsOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	runID := e.admit(t, d.Trigger.TriggerID)
	a := e.pending(t, runID)
	if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	if ids, err := e.store.AttemptsCancelRequested(t.Context(), "owner-1"); err != nil || len(ids) != 0 {
		t.Fatalf("intents before any cancel: %v, %v", ids, err)
	}
	before, _ := e.store.RunGet(t.Context(), runID)
	for range 2 {
		r, eff, err := e.store.CancelRun(t.Context(), runID, "test")
		if err != nil || r.State != run.Running || r.Version != before.Run.Version+1 || eff != (run.CancelEffect{}) {
			t.Fatalf("cancel a running local run: %+v, %v; want it still running at version %d (one intent)", r, err, before.Run.Version+1)
		}
	}
	after, _ := e.store.RunGet(t.Context(), runID)
	if names := eventNames(after); names[len(names)-1] != run.EventCancelRequested || len(names) != len(eventNames(before))+1 {
		t.Fatalf("events %v; want exactly one %s added", names, run.EventCancelRequested)
	}
	if ids, err := e.store.AttemptsCancelRequested(t.Context(), "owner-1"); err != nil || len(ids) != 1 || ids[0] != a.ID {
		t.Fatalf("owner-1's intents: %v, %v; want its attempt %s", ids, err, a.ID)
	}
	if ids, err := e.store.AttemptsCancelRequested(t.Context(), "owner-2"); err != nil || len(ids) != 0 {
		t.Fatalf("another owner's intents: %v, %v; want none", ids, err)
	}
	code := int64(143)
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: run.AttemptCancelled, ExitCode: &code, ErrorCode: "stopped"}); err != nil {
		t.Fatal(err)
	}
	if ids, err := e.store.AttemptsCancelRequested(t.Context(), "owner-1"); err != nil || len(ids) != 0 {
		t.Fatalf("intents after the attempt ended: %v, %v; want none", ids, err)
	}
	if _, _, err := e.store.CancelRun(t.Context(), "0193a8a0-0000-7000-8000-00000000abcd", "test"); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("cancel an unknown run: %v; want not found", err)
	}
}
