package process

import (
	"errors"
	"syscall"
	"time"
)

// OrphanOutcome is what recovery did about the command of a lost attempt.
type OrphanOutcome int

const (
	// OrphanGone means nothing of the command was still running.
	OrphanGone OrphanOutcome = iota
	// OrphanEnded means its process group was still running and was ended.
	OrphanEnded
	// OrphanLeft means something runs under that id that cannot be proven to
	// be the command (the pid may have been reused); it was left alone.
	OrphanLeft
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
func endGroup(pgid int) (OrphanOutcome, error) {
	if !groupRunning(pgid) {
		return OrphanGone, nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return OrphanGone, nil
		}
		return OrphanLeft, err
	}
	if groupGoneWithin(pgid, orphanTermGrace) {
		return OrphanEnded, nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return OrphanLeft, err
	}
	if !groupGoneWithin(pgid, orphanKillWait) {
		return OrphanLeft, errors.New("the process group survived SIGKILL")
	}
	return OrphanEnded, nil
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
