package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// capped publishes project name with one trigger, capped at maxRunning,
// and queues n Runs of it; it returns them, oldest first.
func (e *env) capped(t *testing.T, name string, maxRunning, n int) []string {
	t.Helper()
	d := e.defs(t, name, storetest.QuietCron(e.clock.NowMs()))
	d.Project.MaxRunning = maxRunning
	if _, err := e.store.ProjectSave(t.Context(), d.Project); err != nil {
		t.Fatal(err)
	}
	runs := make([]string, n)
	for i := range runs {
		runs[i] = e.runNow(t, d.Trigger.TriggerID, name+string(rune('a'+i)))
	}
	return runs
}

// dispatchRound does what the dispatcher's round does with free slots:
// reads its page and starts every attempt on it, passing over a start
// the store refuses as a Conflict. It returns the Runs it started.
func (e *env) dispatchRound(t *testing.T, free int) []string {
	t.Helper()
	page, err := e.store.AttemptsPending(t.Context(), free)
	if err != nil {
		t.Fatal(err)
	}
	var started []string
	for _, a := range page {
		_, _, _, err := e.store.AttemptStart(t.Context(), a.ID, "owner-1", "")
		if qlerror.Is(err, qlerror.Conflict) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, a.RunID)
	}
	return started
}

// A project capped at maxRunning 2 with five Runs queued and slots to
// spare starts two, however many rounds ask; a start of a third asked
// directly is refused in the transaction that would take its slot; the
// third says it waits for its project, naming the trigger holding the
// project's share; and once one of the two finishes, the next starts.
func TestAProjectNeverRunsMoreThanItsMaxRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	runs := e.capped(t, "team", 2, 5)
	if started := e.dispatchRound(t, 10); len(started) != 2 || started[0] != runs[0] || started[1] != runs[1] {
		t.Fatalf("a round with ten free slots started %v; want the two oldest, %v", started, runs[:2])
	}
	if started := e.dispatchRound(t, 10); len(started) != 0 {
		t.Fatalf("a second round started %v; the project already runs its maxRunning 2", started)
	}
	if _, _, _, err := e.store.AttemptStart(t.Context(), e.attemptsOf(t, runs[2]), "owner-1", ""); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("a start of a third Run asked directly: %v; want a Conflict (the project runs its maxRunning)", err)
	}
	w := e.waitingOf(t, runs[2])
	if w == nil || w.Reason != run.WaitProjectBusy || w.Project != "team" || w.Running != 2 || w.MaxRunning != 2 ||
		len(w.Holders) != 1 || w.Holders[0].Project != "team" || w.Holders[0].Trigger != "tick" || w.Holders[0].Runs != 2 {
		t.Fatalf("the third Run waits %+v; want project_busy, team running 2 of 2, held by team/tick (2)", w)
	}
	exit := int64(0)
	first := e.attemptsOf(t, runs[0])
	if err := e.store.AttemptRunning(t.Context(), first, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AttemptFinish(t.Context(), run.Attempt{ID: first, State: run.AttemptSucceeded, ExitCode: &exit}); err != nil {
		t.Fatal(err)
	}
	if started := e.dispatchRound(t, 10); len(started) != 1 || started[0] != runs[2] {
		t.Fatalf("once one finished, a round started %v; want the third, %s, alone", started, runs[2])
	}
}

// attemptsOf is the id of Run id's one attempt.
func (e *env) attemptsOf(t *testing.T, id string) string {
	t.Helper()
	d, err := e.store.RunGet(t.Context(), id)
	if err != nil || len(d.Attempts) != 1 {
		t.Fatalf("run %s: %d attempts, %v; want one", id, len(d.Attempts), err)
	}
	return d.Attempts[0].ID
}

// A capped project at its cap with a long queue, older than every other
// project's Runs, does not hold them back: the dispatcher's page passes
// over its Runs, so a round with free slots starts the other projects'
// Runs, oldest first, and a server-wide wait is not said of them.
func TestACappedProjectLeavesFreeSlotsToOtherProjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	team := e.capped(t, "runaway", 1, 6)
	if started := e.dispatchRound(t, 1); len(started) != 1 || started[0] != team[0] {
		t.Fatalf("the first round started %v; want %s", started, team[0])
	}
	others := e.capped(t, "other", 0, 2)
	if started := e.dispatchRound(t, 2); len(started) != 2 || started[0] != others[0] || started[1] != others[1] {
		t.Fatalf("a round with two free slots started %v; want the other project's two Runs %v, queued after the capped project's five", started, others)
	}
}
