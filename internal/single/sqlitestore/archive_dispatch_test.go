package sqlitestore

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
)

// The dispatcher starts no Run of an archived project: neither one queued
// before the archive nor the retry of one that was running then and
// failed after it; another project's Run still starts, and both start
// once the project is active again.
func TestTheDispatcherStartsNoQueuedRunOrRetryOfAnArchivedProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tg := e.retryingTrigger(t, "alpha")
	running := e.admit(t, tg.TriggerID)
	a := e.pending(t, running)
	if _, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", ""); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	queued := e.admit(t, tg.TriggerID)
	other := e.admit(t, e.defs(t, "beta", everyMinute).Trigger.TriggerID)

	setProjectStatus(t, e, "alpha", project.Archived)
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: a.ID, State: run.AttemptFailed, ErrorCode: "exit_1"}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Second)
	if n, _, err := e.store.RetriesRequeue(t.Context(), 10); err != nil || n != 1 {
		t.Fatalf("requeue: %d Runs, %v; want the failed Run's retry queued", n, err)
	}
	if got := e.pendingOrder(t, 10); !slices.Equal(got, []string{other}) {
		t.Fatalf("with alpha archived the dispatcher's queue is %v; want only beta's Run %s, not alpha's queued %s nor the retry of %s", got, other, queued, running)
	}

	setProjectStatus(t, e, "alpha", project.Active)
	if got := e.pendingOrder(t, 10); len(got) != 3 || !slices.Contains(got, queued) || !slices.Contains(got, running) {
		t.Fatalf("with alpha active again the dispatcher's queue is %v; want alpha's %s and %s beside beta's", got, queued, running)
	}
}

// setProjectStatus saves the named project with status.
func setProjectStatus(t *testing.T, e *env, name string, status project.Status) {
	t.Helper()
	p, err := e.store.ProjectByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	p.Status = status
	if _, err := e.store.ProjectSave(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}
