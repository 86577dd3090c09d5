package sqlitestore

import (
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// pending returns the single claimed attempt of runID.
func (e *env) pending(t *testing.T, runID string) run.Attempt {
	t.Helper()
	list, err := e.store.AttemptsPending(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if a.RunID == runID {
			return a
		}
	}
	t.Fatalf("run %s has no pending attempt (pending: %+v)", runID, list)
	return run.Attempt{}
}

func eventNames(d run.Detail) []string {
	var out []string
	for i, ev := range d.Events {
		if ev.Seq != int64(i+1) {
			return append(out, "gap")
		}
		out = append(out, ev.Name)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAttemptLifecycleAppendsOneEventPerChangeInSequence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "alpha", everyMinute)
	runID := e.admit(t, d.Trigger.TriggerID)
	a := e.pending(t, runID)
	plan, _, planErr, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", "/logs/"+a.ID+".log")
	if err != nil || planErr != nil {
		t.Fatal(err, planErr)
	}
	if plan.TaskID != d.Task.TaskID || plan.Command.Path != "/usr/bin/env" {
		t.Fatalf("start returned plan %+v, want the task's command", plan)
	}
	if err := e.store.AttemptRunning(t.Context(), a.ID, 4242); err != nil {
		t.Fatal(err)
	}
	zero := int64(0)
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: run.AttemptSucceeded, ExitCode: &zero, LogBytes: 12}); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.RunGet(t.Context(), runID)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{run.EventCreated, run.EventQueued, run.EventRunning, run.EventAttemptStarted, run.EventSucceeded}
	if names := eventNames(got); !equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	r, at := got.Run, got.Attempts[0]
	if r.State != run.Succeeded || r.Version != 5 || r.LastEventSeq != 5 || r.FinishedAtMs == nil {
		t.Fatalf("run %+v; want succeeded at version 5 with a finish time", r)
	}
	if at.State != run.AttemptSucceeded || at.ExitCode == nil || *at.ExitCode != 0 || at.LogBytes != 12 || at.LogPath != "/logs/"+a.ID+".log" || at.StartedAtMs == nil {
		t.Fatalf("attempt %+v", at)
	}
	if more, _ := e.store.AttemptsPending(t.Context(), 10); len(more) != 0 {
		t.Fatalf("a finished attempt is still pending: %+v", more)
	}
}

func TestOnlyOneDispatcherStartsAnAttempt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other, err := Open(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	d := e.defs(t, "alpha", everyMinute)
	a := e.pending(t, e.admit(t, d.Trigger.TriggerID))
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, s := range []*Store{e.store, other} {
		wg.Go(func() { _, _, _, errs[i] = s.AttemptStart(t.Context(), a.ID, "owner-"+string(rune('a'+i)), "") })
	}
	wg.Wait()
	conflicts := 0
	for _, err := range errs {
		if qlerror.Is(err, qlerror.Conflict) {
			conflicts++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if conflicts != 1 {
		t.Fatalf("start results %v; want exactly one conflict", errs)
	}
}

func TestLostAttemptsBelongToTheDeadOwnerOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dead, alive, idle := e.defs(t, "dead", everyMinute), e.defs(t, "alive", everyMinute), e.defs(t, "idle", everyMinute)
	deadRun, aliveRun, idleRun := e.admit(t, dead.Trigger.TriggerID), e.admit(t, alive.Trigger.TriggerID), e.admit(t, idle.Trigger.TriggerID)
	da := e.pending(t, deadRun)
	if _, _, _, err := e.store.AttemptStart(t.Context(), da.ID, "owner-dead", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AttemptRunning(t.Context(), da.ID, 4242); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := e.store.AttemptStart(t.Context(), e.pending(t, aliveRun).ID, "owner-alive", ""); err != nil {
		t.Fatal(err)
	}
	owners, err := e.store.AttemptOwners(t.Context())
	if err != nil || !equal(owners, []string{"owner-alive", "owner-dead"}) {
		t.Fatalf("owners %v, %v", owners, err)
	}
	lost, finished, err := e.store.AttemptsLose(t.Context(), "owner-dead")
	if err != nil || len(lost) != 1 || finished != (run.FinishCounts{Lost: 1}) || lost[0].ID != da.ID || lost[0].PID != 4242 || lost[0].StartedAtMs == nil {
		t.Fatalf("lose: %+v, %+v, %v; want attempt %s with its pid 4242 and start time, its Run finished lost", lost, finished, err, da.ID)
	}
	states := map[string]run.State{deadRun: run.Lost, aliveRun: run.Running, idleRun: run.Queued}
	for id, want := range states {
		got, err := e.store.RunGet(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Run.State != want {
			t.Fatalf("run %s is %s, want %s", id, got.Run.State, want)
		}
	}
	lostRun, _ := e.store.RunGet(t.Context(), deadRun)
	last := lostRun.Events[len(lostRun.Events)-1]
	if last.Name != run.EventLost || lostRun.Attempts[0].State != run.AttemptLost || lostRun.Attempts[0].ErrorCode != ErrorCodeExecutorLost {
		t.Fatalf("lost run: last event %s, attempt %+v", last.Name, lostRun.Attempts[0])
	}
	// A result arriving after the attempt was declared lost is refused.
	zero := int64(0)
	_, err = e.store.AttemptFinish(t.Context(), run.Attempt{ID: da.ID, State: run.AttemptSucceeded, ExitCode: &zero})
	requireCode(t, err, qlerror.FailedPrecondition, "late result for a lost attempt")
	if again, _ := e.store.RunGet(t.Context(), deadRun); again.Run.State != run.Lost || again.Run.Version != lostRun.Run.Version {
		t.Fatalf("late result changed the run: %+v", again.Run)
	}
}

func TestAttemptFinishOnlyAcceptsResultStates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: ids.New(), State: run.AttemptRunning})
	requireCode(t, err, qlerror.Invalid, "finish with a non-result state")
}
