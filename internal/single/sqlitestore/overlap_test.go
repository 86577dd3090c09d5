package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// Under queue_one the Run admitted behind an unfinished one is not handed
// to the dispatcher until the earlier Run has finished.
func TestAQueuedOneRunIsNotDispatchedWhileTheEarlierRunIsUnfinished(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := storetest.QuietCron(e.clock.NowMs())
	c.Overlap = trigger.OverlapQueueOne
	d := e.defs(t, "demo", c)
	id := d.Trigger.TriggerID
	first, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "one"})
	if err != nil {
		t.Fatal(err)
	}
	a := e.pending(t, first.RunID)
	if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	second, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "two"})
	if err != nil || !second.Created {
		t.Fatalf("second request: %+v, %v; want a waiting Run", second, err)
	}
	third, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "three"})
	if err != nil || third.Skipped != schedule.PassOverlap {
		t.Fatalf("third request: %+v, %v; want it refused with one Run waiting already", third, err)
	}
	if p := e.pendingRuns(t); p[second.RunID] {
		t.Fatalf("pending runs %v; want not the one waiting behind the running one", p)
	}
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: run.AttemptCancelled, ErrorCode: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	if p := e.pendingRuns(t); !p[second.RunID] {
		t.Fatalf("pending runs %v; want the waiting Run once the earlier one finished", p)
	}
}

// Under cancel_previous the Run admitted behind a running one is not handed
// to the dispatcher until the Run it cancelled has stopped, for a clock
// admission and a run now alike, so two commands of the trigger never run
// at once while the cancelled one is being stopped.
func TestACancelPreviousRunIsNotDispatchedUntilTheRunItCancelledHasStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := storetest.QuietCron(e.clock.NowMs())
	c.Overlap = trigger.OverlapCancelPrevious
	d := e.defs(t, "demo", c)
	id := d.Trigger.TriggerID
	// running starts runID's attempt as the dispatcher does.
	running := func(runID string) run.Attempt {
		a := e.pending(t, runID)
		if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
			t.Fatal(err)
		}
		return a
	}
	first, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "one"})
	if err != nil {
		t.Fatal(err)
	}
	a := running(first.RunID)
	second := e.admit(t, id)
	if p := e.pendingRuns(t); p[second] {
		t.Fatalf("pending runs %v; want the clock's Run waiting while the one it cancelled still runs", p)
	}
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: run.AttemptCancelled, ErrorCode: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	if p := e.pendingRuns(t); !p[second] {
		t.Fatalf("pending runs %v; want the clock's Run once the one it cancelled stopped", p)
	}
	b := running(second)
	third, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: "three"})
	if err != nil || !third.Created {
		t.Fatalf("run now: %+v, %v; want a Run", third, err)
	}
	if p := e.pendingRuns(t); p[third.RunID] {
		t.Fatalf("pending runs %v; want the manual Run waiting while the one it cancelled still runs", p)
	}
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: b.ID, State: run.AttemptCancelled, ErrorCode: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	if p := e.pendingRuns(t); !p[third.RunID] {
		t.Fatalf("pending runs %v; want the manual Run once the one it cancelled stopped", p)
	}
}

// pendingRuns is the set of Runs whose attempt the dispatcher would be
// handed now.
func (e *env) pendingRuns(t *testing.T) map[string]bool {
	t.Helper()
	list, err := e.store.AttemptsPending(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, a := range list {
		out[a.RunID] = true
	}
	return out
}
