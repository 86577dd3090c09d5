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
	r, err := e.store.CancelRun(t.Context(), runID)
	if err != nil || r.State != run.Cancelled || r.FinishedAtMs == nil {
		t.Fatalf("cancel a queued run: %+v, %v; want it cancelled with a finish time", r, err)
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
	if _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("a dispatcher starting the cancelled attempt: %v; want a conflict", err)
	}
	again, err := e.store.CancelRun(t.Context(), runID)
	if err != nil || again.State != run.Cancelled || again.Version != r.Version {
		t.Fatalf("cancel again: %+v, %v; want the run unchanged", again, err)
	}
}

func TestCancellingARunningLocalRunIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	runID := e.admit(t, d.Trigger.TriggerID)
	a := e.pending(t, runID)
	if _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	before, _ := e.store.RunGet(t.Context(), runID)
	_, err := e.store.CancelRun(t.Context(), runID)
	if !qlerror.Is(err, qlerror.FailedPrecondition) {
		t.Fatalf("cancel a running local run: %v; want a failed precondition saying it is not supported", err)
	}
	after, _ := e.store.RunGet(t.Context(), runID)
	if after.Run.State != run.Running || after.Run.Version != before.Run.Version {
		t.Fatalf("run %+v after a refused cancel; want it running at version %d", after.Run, before.Run.Version)
	}
	if _, err := e.store.CancelRun(t.Context(), "0193a8a0-0000-7000-8000-00000000abcd"); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("cancel an unknown run: %v; want not found", err)
	}
}
