package run

import "testing"

// A Run finishes once: in the first terminal or lost state it reaches.
// A lost Run closed cancelled had finished already, and no move out of a
// finished state other than that one exists.
func TestARunFinishesOnlyByLeavingTheUnfinishedStates(t *testing.T) {
	t.Parallel()
	for _, from := range States {
		for _, to := range States {
			if CheckTransition(from, to) != nil {
				continue
			}
			want := !from.Finished() && (to.Terminal() || to == Lost)
			if got := Finishes(from, to); got != want {
				t.Errorf("Finishes(%s, %s) = %v, want %v", from, to, got, want)
			}
			if from.Finished() && to != Cancelled && to != Queued && to != Failed {
				t.Errorf("%s → %s leaves a finished state", from, to)
			}
		}
	}
	if Finishes(Lost, Cancelled) {
		t.Error("closing a lost Run cancelled finishes it a second time")
	}
	var c FinishCounts
	for _, s := range States {
		c.Add(s)
	}
	if c != (FinishCounts{Succeeded: 1, Failed: 1, TimedOut: 1, Cancelled: 1, Lost: 1}) || c.Total() != len(FinishedStates) {
		t.Errorf("one of every state counts %+v, want one of each finished state", c)
	}
	for _, s := range FinishedStates {
		if !s.Finished() || c.Of(s) != 1 {
			t.Errorf("%s: finished %v, counted %d", s, s.Finished(), c.Of(s))
		}
	}
}
