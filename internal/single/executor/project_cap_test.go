package executor

import "testing"

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
	if most := h.mostAtOnce(t, 6, 4); most != 2 {
		t.Fatalf("at most %d of the project's commands ran at once; want its maxRunning, 2", most)
	}
}
