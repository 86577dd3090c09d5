// Package procs starts the real processes tests drive (replicas, workers)
// so that none of them outlives the test binary, however it ends.
package procs

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Start starts cmd with a parent-death signal of SIGKILL and reaps it: the
// returned channel is closed once the process has exited, after exited
// has been given its state.
//
// The parent-death signal fires when the forking thread exits, not the
// process (go.dev/issue/27505): that thread stays locked, waiting for the
// child, so only the test process's death sets it off.
func Start(cmd *exec.Cmd, exited func(*os.ProcessState)) (<-chan struct{}, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		exited(cmd.ProcessState)
		close(done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return done, nil
}
