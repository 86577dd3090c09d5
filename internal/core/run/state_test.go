package run

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func TestEveryRunStateHasATerminalPath(t *testing.T) {
	t.Parallel()
	for _, s := range States {
		if s.Terminal() {
			if _, ok := runTransitions[s]; ok {
				t.Errorf("terminal state %s has outgoing transitions", s)
			}
			continue
		}
		if len(runTransitions[s]) == 0 {
			t.Errorf("non-terminal state %s has no transition", s)
		}
	}
}

func TestRunTransitionTable(t *testing.T) {
	t.Parallel()
	allowed := []struct{ from, to State }{
		{Created, Queued}, {Queued, Dispatching}, {Queued, Running}, {Dispatching, Running},
		{Running, Succeeded}, {Running, TimedOut}, {Running, Lost}, {Lost, Queued}, {RetryWait, Queued},
	}
	for _, c := range allowed {
		if err := CheckTransition(c.from, c.to); err != nil {
			t.Errorf("%s→%s rejected: %v", c.from, c.to, err)
		}
	}
	refused := []struct{ from, to State }{
		{Created, Running}, {Queued, Succeeded}, {Succeeded, Running}, {Failed, Queued},
		{Cancelled, Queued}, {TimedOut, Succeeded}, {Lost, Succeeded},
	}
	for _, c := range refused {
		err := CheckTransition(c.from, c.to)
		if !qlerror.Is(err, qlerror.FailedPrecondition) {
			t.Errorf("%s→%s: got %v, want failed_precondition", c.from, c.to, err)
		}
	}
	if err := CheckTransition("bogus", Queued); !qlerror.Is(err, qlerror.Invalid) {
		t.Errorf("unknown state: got %v, want invalid", err)
	}
}

func TestLateCallbackNeverOverridesTerminalAttempt(t *testing.T) {
	t.Parallel()
	for _, term := range []AttemptState{AttemptSucceeded, AttemptFailed, AttemptTimedOut, AttemptCancelled, AttemptLost} {
		if !term.Terminal() {
			t.Fatalf("%s should be terminal", term)
		}
		for _, to := range AttemptStates {
			if err := CheckAttemptTransition(term, to); err == nil {
				t.Errorf("terminal attempt %s accepted %s", term, to)
			}
		}
	}
	if err := CheckAttemptTransition(AttemptClaimed, AttemptStarting); err != nil {
		t.Fatal(err)
	}
	if err := CheckAttemptTransition(AttemptStarting, AttemptRunning); err != nil {
		t.Fatal(err)
	}
	if err := CheckAttemptTransition(AttemptClaimed, AttemptSucceeded); err == nil {
		t.Fatal("claimed attempt jumped to succeeded")
	}
}

// The states a user filters Runs by are every state but waiting_approval,
// which no path enters yet: a state added to States is offered too.
func TestEveryStateButWaitingApprovalIsReachable(t *testing.T) {
	t.Parallel()
	for _, s := range States {
		if got, want := slices.Contains(Reachable, s), s != WaitingApproval; got != want {
			t.Errorf("state %s: offered %v, want %v", s, got, want)
		}
	}
	if len(Reachable) != len(States)-1 {
		t.Errorf("Reachable lists %d states; want the %d of States but waiting_approval", len(Reachable), len(States)-1)
	}
}
