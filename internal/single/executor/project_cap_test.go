package executor

import (
	"testing"
	"time"
)

// A dispatcher with four slots runs at most two commands at once of a
// project capped at maxRunning 2, and all six of its Runs in the end: as
// one finishes, the project's next queued Run starts.
func TestADispatcherRunsNoMoreOfAProjectsRunsAtOnceThanItsMaxRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.project.MaxRunning = 2
	if _, err := h.store.ProjectSave(t.Context(), h.project); err != nil {
		t.Fatal(err)
	}
	const runs = 6
	for range runs {
		h.admit(t, shell("sleep 0.2", time.Minute))
	}
	d, sig := h.dispatcher(t, dispatcherOpts{concurrency: 4})
	d.Wake()
	sig.wait(t, runs)
	sig.mu.Lock()
	defer sig.mu.Unlock()
	if sig.maxSeen != 2 {
		t.Fatalf("at most %d of the project's commands ran at once; want its maxRunning, 2", sig.maxSeen)
	}
}
