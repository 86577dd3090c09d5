package run

// A Run has finished when it reached a terminal state or lost: lost is
// not terminal (a cancel may still close it) but the Run has ended for the
// people watching it — its finish is stamped, its notifications are sent,
// retention ages it. So a Run finishes once, in the first of those states
// it reaches, and a lost Run closed cancelled later does not finish again.
//
// A store operation that finishes Runs reports the ones it finished
// itself (Finishes): a write that finds its Run finished already — a
// worker's replayed completion, a second replica's sweep of the same
// expired attempt, a cancel that raced the end — reports nothing, so that
// counting the reports counts each finished Run exactly once.

// Finished reports whether a Run in state s has finished: terminal, or
// lost.
func (s State) Finished() bool { return s.Terminal() || s == Lost }

// FinishedStates lists the states a Run finishes in, each an outcome of
// qinglong_runs_finished_total.
var FinishedStates = []State{Succeeded, Failed, TimedOut, Cancelled, Lost}

// Finishes reports whether moving a Run from → to finishes it: to has
// finished and from had not. A move from lost to cancelled closes a Run
// that had finished already.
func Finishes(from, to State) bool { return !from.Finished() && to.Finished() }

// FinishCounts counts, per finished state, the Runs one store operation
// finished (Finishes) — never one it found finished already.
type FinishCounts struct {
	Succeeded, Failed, TimedOut, Cancelled, Lost int
}

// Add counts one Run finished in s; a state that is not a finished one is
// not counted.
func (c *FinishCounts) Add(s State) {
	if p := c.of(s); p != nil {
		*p++
	}
}

// Merge adds o's counts to c.
func (c *FinishCounts) Merge(o FinishCounts) {
	for _, s := range FinishedStates {
		*c.of(s) += o.Of(s)
	}
}

// Of is the number of Runs counted finished in s.
func (c FinishCounts) Of(s State) int {
	if p := c.of(s); p != nil {
		return *p
	}
	return 0
}

// Total is the number of Runs counted, in every state.
func (c FinishCounts) Total() int {
	return c.Succeeded + c.Failed + c.TimedOut + c.Cancelled + c.Lost
}

func (c *FinishCounts) of(s State) *int {
	switch s {
	case Succeeded:
		return &c.Succeeded
	case Failed:
		return &c.Failed
	case TimedOut:
		return &c.TimedOut
	case Cancelled:
		return &c.Cancelled
	case Lost:
		return &c.Lost
	}
	return nil
}

// CancelEffect is what one cancel call did to a Run. Neither set: the call
// ended nothing — it recorded the intent to stop a running Run (the Run's
// state is then still unfinished), found that intent recorded already, or
// found the Run ended.
type CancelEffect struct {
	// Finished: this call finished the Run cancelled (Finishes), before
	// its command started. The only effect counted as a Run's finish.
	Finished bool
	// ClosedLost: this call closed a lost Run cancelled. It had finished
	// (lost) before, so this is not its finish.
	ClosedLost bool
}
