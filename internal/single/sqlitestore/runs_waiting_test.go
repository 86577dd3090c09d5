package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// waitingOf reads Run id as `ql runs show` does and returns why it waits.
func (e *env) waitingOf(t *testing.T, id string) *run.Waiting {
	t.Helper()
	d, err := e.store.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Waiting
}

// runNow admits a Run of trigger id as `ql triggers run` does.
func (e *env) runNow(t *testing.T, id, request string) string {
	t.Helper()
	res, err := e.store.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: id, RequestID: request})
	if err != nil || !res.Created {
		t.Fatalf("run now %s: %+v, %v; want a Run", request, res, err)
	}
	return res.RunID
}

// A queued Run its trigger's overlap policy holds behind an earlier
// unfinished Run says it waits for that Run while that one runs (the slot
// it holds is freed when it finishes), and says nothing once it has
// finished and the dispatcher takes the Run; the earlier Run, which nothing
// holds, says nothing either. It names the policy that holds it, its
// admitting trigger revision's.
func TestAQueuedRunHeldBehindAnEarlierRunOfItsTriggerSaysItWaitsForThatRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := storetest.QuietCron(e.clock.NowMs())
	c.Overlap = trigger.OverlapQueueOne
	id := e.defs(t, "demo", c).Trigger.TriggerID
	first := e.runNow(t, id, "one")
	if w := e.waitingOf(t, first); w != nil {
		t.Fatalf("the first Run waits %+v; nothing holds it", w)
	}
	a := e.pending(t, first)
	if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AttemptRunning(t.Context(), a.ID, 1); err != nil {
		t.Fatal(err)
	}
	second := e.runNow(t, id, "two")
	if w := e.waitingOf(t, second); w == nil || w.Reason != run.WaitPrevious || w.PreviousRun != first || w.Overlap != "queue_one" {
		t.Fatalf("with the first Run running, the second waits %+v; want %s behind %s by queue_one", w, run.WaitPrevious, first)
	}
	exit := int64(0)
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: run.AttemptSucceeded, ExitCode: &exit}); err != nil {
		t.Fatal(err)
	}
	if w := e.waitingOf(t, second); w != nil {
		t.Fatalf("once the first Run finished, the second waits %+v; want nothing (the next dispatch starts it)", w)
	}
}

// A queued Run read while Runs dispatch or run says how many hold a
// server's slot, which is all the database knows (the limit is the
// server's); with none running, it says nothing.
func TestAQueuedRunReadWhileRunsHoldSlotsSaysHowManyRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.defs(t, "demo", storetest.QuietCron(e.clock.NowMs())).Trigger.TriggerID
	runs := []string{e.runNow(t, id, "a"), e.runNow(t, id, "b"), e.runNow(t, id, "c")}
	if w := e.waitingOf(t, runs[2]); w != nil {
		t.Fatalf("with nothing running, the Run waits %+v; want nothing", w)
	}
	for i, r := range runs[:2] {
		if _, _, _, err := e.store.AttemptStart(t.Context(), e.pending(t, r).ID, "owner-1", ""); err != nil {
			t.Fatal(err)
		}
		w := e.waitingOf(t, runs[2])
		if w == nil || w.Reason != run.WaitServerBusy || w.Running != i+1 || w.Concurrency != 0 {
			t.Fatalf("with %d running, the Run waits %+v; want %s counting %[1]d, no limit", i+1, w, run.WaitServerBusy)
		}
	}
	if w := e.waitingOf(t, runs[0]); w != nil {
		t.Fatalf("a running Run waits %+v; only a queued one can", w)
	}
}

// A queued Run of an archived project says its project is archived and
// how to make it start, whether the server's slots are free or full (the
// dispatcher holds it either way), and nothing of the kind once the
// project is active again.
func TestAQueuedRunOfAnArchivedProjectSaysItsProjectIsArchived(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.defs(t, "gamma", storetest.QuietCron(e.clock.NowMs())).Trigger.TriggerID
	runs := []string{e.runNow(t, id, "a"), e.runNow(t, id, "b")}
	setProjectStatus(t, e, "gamma", project.Archived)
	want := "project gamma is archived; this Run starts once the project is active again (set status: active in the definitions and apply)"
	if w := e.waitingOf(t, runs[1]); w == nil || w.Reason != run.WaitProjectArchived || w.Project != "gamma" || w.Message() != want {
		t.Fatalf("with the slots free, the archived project's Run waits %+v; want %s saying %q", w, run.WaitProjectArchived, want)
	}
	if _, _, _, err := e.store.AttemptStart(t.Context(), e.pending(t, e.runNow(t, e.defs(t, "delta", storetest.QuietCron(e.clock.NowMs())).Trigger.TriggerID, "c")).ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	if w := e.waitingOf(t, runs[1]); w == nil || w.Reason != run.WaitProjectArchived {
		t.Fatalf("with a Run holding a slot, the archived project's Run waits %+v; want %s", w, run.WaitProjectArchived)
	}
	setProjectStatus(t, e, "gamma", project.Active)
	if w := e.waitingOf(t, runs[1]); w == nil || w.Reason != run.WaitServerBusy {
		t.Fatalf("with gamma active again, its Run waits %+v; want %s (a slot is held)", w, run.WaitServerBusy)
	}
}
