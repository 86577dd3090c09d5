package console

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// Each password check holds Argon2id's 19 MiB for its tens of
// milliseconds, so sign-ins from many addresses at once (which no
// per-address throttle slows) would otherwise hold that much each and
// could take an edge server's whole memory. A check uses one core and
// runs no faster beside another on the same core, so more checks at once
// than cores only cost memory: at most two run at once, one on a
// one-core router (19 MiB above idle at worst), and the others wait.
const (
	maxSigninChecks = 2
	// signinCheckWait bounds that wait: dozens of checks' time, so a
	// burst of people signing in together still gets through, while a
	// flood is refused quickly instead of piling up requests.
	signinCheckWait = 2 * time.Second
)

func signinChecksFor(procs int) int {
	return max(1, min(maxSigninChecks, procs))
}

// checkSlots bounds the password checks running at once.
type checkSlots struct {
	slots chan struct{}
	wait  time.Duration
	// busy counts the sign-ins refused for want of a slot.
	busy atomic.Uint64
}

func newCheckSlots(n int, wait time.Duration) *checkSlots {
	return &checkSlots{slots: make(chan struct{}, n), wait: wait}
}

func defaultCheckSlots() *checkSlots {
	return newCheckSlots(signinChecksFor(runtime.GOMAXPROCS(0)), signinCheckWait)
}

// acquire takes a slot, waiting at most the slots' wait or until ctx
// ends; false (counted) when none came free. The caller releases a slot
// it took.
func (s *checkSlots) acquire(ctx context.Context) bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	s.busy.Add(1)
	return false
}

func (s *checkSlots) release() { <-s.slots }
