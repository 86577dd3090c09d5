package process

import (
	"syscall"
	"time"
)

// Polling while an attempt's processes end: the first look comes soon
// (most commands exit on SIGTERM at once), later ones back off to
// treePollMax, since each may read the whole process table. After
// SIGKILL the wait is bounded by treeKillWait.
const (
	treePollMin  = 10 * time.Millisecond
	treePollMax  = 500 * time.Millisecond
	treeKillWait = 2 * time.Second
)

// tree is everything one attempt started: its main process, the process
// group that process leads, and — on Linux — the descendants that left the
// group (setsid, setpgid) wherever they moved, found by ancestry, by the
// QL_ATTEMPT_ID marker in their environment, and by being re-parented to
// this server (a child subreaper). Finding them is best effort: a process
// that leaves the group, clears its environment and loses its parent is
// not found.
type tree struct {
	main      int
	attemptID string
	// known remembers members by pid and start time, so one found while
	// its parent lived is still recognised after it was re-parented.
	known map[int]uint64
}

func newTree(main int, attemptID string) *tree {
	t := &tree{main: main, attemptID: attemptID, known: map[int]uint64{}}
	t.seed()
	return t
}

// Ending is how end ended the attempt's processes, for the line that
// tells the log's reader (StoppedLine).
type Ending int

// The endings.
const (
	EndedAlready   Ending = iota // nothing ran any more: no signal was sent
	EndedOnTerm                  // SIGTERM ended everything within the grace
	EndedAfterKill               // SIGKILL ended what outlived the grace
	EndedHardKill                // SIGKILL before the grace ran out: hard closed
)

// Endings lists every Ending.
var Endings = []Ending{EndedAlready, EndedOnTerm, EndedAfterKill, EndedHardKill}

// end ends every live member: SIGTERM first so the command may clean up,
// SIGKILL for what is left after grace or as soon as hard closes. It
// returns once nothing of the attempt runs, or after treeKillWait past the
// SIGKILL (a process in uninterruptible sleep dies only when it wakes),
// with how many members ran when it began (on Linux processes; elsewhere
// the group counts as one).
func (t *tree) end(grace time.Duration, hard <-chan struct{}) (Ending, int) {
	live := t.live()
	left := len(live)
	if left == 0 {
		return EndedAlready, 0
	}
	return t.endLive(live, grace, hard), left
}

func (t *tree) endLive(live []int, grace time.Duration, hard <-chan struct{}) Ending {
	t.signal(live, syscall.SIGTERM)
	limit := time.NewTimer(grace)
	defer limit.Stop()
	poll := treePollMin
	look := time.NewTimer(poll)
	defer look.Stop()
	var how Ending
wait:
	for {
		select {
		case <-look.C:
			if live = t.live(); len(live) == 0 {
				return EndedOnTerm
			}
			poll = min(2*poll, treePollMax)
			look.Reset(poll)
		case <-limit.C:
			how = EndedAfterKill
			break wait
		case <-hard:
			how = EndedHardKill
			break wait
		}
	}
	t.signal(t.live(), syscall.SIGKILL)
	deadline := time.Now().Add(treeKillWait)
	for len(t.live()) > 0 && time.Now().Before(deadline) {
		time.Sleep(treePollMin)
	}
	return how
}

// signal sends sig to the group and to every member outside it. ESRCH
// (gone meanwhile) is the normal case.
func (t *tree) signal(pids []int, sig syscall.Signal) {
	_ = syscall.Kill(-t.main, sig)
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
}
