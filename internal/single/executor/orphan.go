package executor

import (
	"errors"
	"syscall"
	"time"
)

// orphanOutcome is what recovery did about the command of a lost attempt.
type orphanOutcome int

const (
	// orphanGone: nothing of the command was still running.
	orphanGone orphanOutcome = iota
	// orphanEnded: its process group was still running and was ended.
	orphanEnded
	// orphanLeft: something runs under that id that cannot be proven to
	// be the command (the pid may have been reused); it was left alone.
	orphanLeft
)

// Bounds of ending an orphaned process group: SIGTERM, then SIGKILL after
// orphanTermGrace, then wait at most orphanKillWait for it to vanish.
const (
	orphanTermGrace = 2 * time.Second
	orphanKillWait  = time.Second
	orphanPoll      = 20 * time.Millisecond
)

// endGroup ends process group pgid: SIGTERM so the command may clean up,
// SIGKILL for whatever is left after orphanTermGrace. Its caller has
// established that the group is the command's.
func endGroup(pgid int) (orphanOutcome, error) {
	if !groupRunning(pgid) {
		return orphanGone, nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return orphanGone, nil
		}
		return orphanLeft, err
	}
	if groupGoneWithin(pgid, orphanTermGrace) {
		return orphanEnded, nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return orphanLeft, err
	}
	if !groupGoneWithin(pgid, orphanKillWait) {
		return orphanLeft, errors.New("the process group survived SIGKILL")
	}
	return orphanEnded, nil
}

// groupGoneWithin polls until no process of group pgid runs, or limit.
func groupGoneWithin(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if !groupRunning(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(orphanPoll)
	}
}
