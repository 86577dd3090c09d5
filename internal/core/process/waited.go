package process

import (
	"os/exec"
	"sync"
)

// waited records the children this process started whose exit status an
// exec.Cmd's Wait is to take, from their spawn until that Wait returned:
// the reaper (ReapAdopted) collects every other dead child it may, and
// must never take one of these, or its command's exit status would be
// lost (Wait would fail with ECHILD).
var waited = struct {
	// spawning is held for reading across a spawn until its pid is
	// recorded, and for writing by a sweep of the reaper: a child that
	// dies before its pid could be recorded is not yet the reaper's to
	// look at.
	spawning sync.RWMutex
	mu       sync.Mutex
	pids     map[int]struct{}
}{pids: map[int]struct{}{}}

// startWaited starts cmd and records its pid until waitWaited.
func startWaited(cmd *exec.Cmd) error {
	waited.spawning.RLock()
	defer waited.spawning.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	waited.mu.Lock()
	waited.pids[cmd.Process.Pid] = struct{}{}
	waited.mu.Unlock()
	return nil
}

// waitWaited waits for cmd, started by startWaited, and forgets its pid
// once its exit status was taken.
func waitWaited(cmd *exec.Cmd) error {
	err := cmd.Wait()
	waited.mu.Lock()
	delete(waited.pids, cmd.Process.Pid)
	waited.mu.Unlock()
	return err
}

// isWaited reports whether an exec.Cmd of this package is to take pid's
// exit status.
func isWaited(pid int) bool {
	waited.mu.Lock()
	defer waited.mu.Unlock()
	_, ok := waited.pids[pid]
	return ok
}
