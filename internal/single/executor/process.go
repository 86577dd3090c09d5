package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Error codes recorded on attempts.
const (
	ErrorCodeExitNonZero   = "exit_nonzero"
	ErrorCodeSignaled      = "killed_by_signal"
	ErrorCodeSpawnFailed   = "spawn_failed"
	ErrorCodeTimeout       = "timeout"
	ErrorCodeStopped       = "server_stopped"
	ErrorCodeSecret        = "secret_unavailable"
	ErrorCodePlanInvalid   = "execution_revision_invalid"
	ErrorCodeLogUnwritable = "log_unwritable"
	ErrorCodeRunAs         = "run_as_unavailable"
	ErrorCodeWorkDir       = "working_dir_unavailable"
)

// pipeDrainLimit bounds the wait for output after the process group is
// gone: a process that left the group (setsid) may still hold the pipe, and
// the attempt must not wait for it.
const pipeDrainLimit = 2 * time.Second

// result is how one process ended.
type result struct {
	state    run.AttemptState
	exitCode *int64
	code     string
}

// launch is everything one attempt's process starts with.
type launch struct {
	attemptID string
	command   task.Command
	env       []string
	// dir is the working directory (see attemptDir).
	dir string
	// cred switches the account; nil runs as this server.
	cred *syscall.Credential
}

// runProcess runs l.command in its own process group, writing stdout and
// stderr to out, until it exits, its timeout passes or ctx ends. started
// is called once the process exists. Whatever ends the attempt, everything
// it started is ended afterwards (see tree.end): SIGTERM, then SIGKILL
// after the task's kill grace, or at once when hard closes.
func runProcess(ctx context.Context, hard <-chan struct{}, l launch, out io.Writer, started func(pid int)) result {
	becomeSubreaper()
	c := l.command
	cmd := command(c)
	cmd.Env = l.env
	cmd.Dir = l.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: l.cred}
	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(out, "qinglong: could not create the output pipe: %v\n", err)
		return result{state: run.AttemptFailed, code: ErrorCodeSpawnFailed}
	}
	defer pr.Close() //nolint:errcheck // the read end; the copy has ended or was cut off
	// An *os.File as stdout/stderr is handed to the child directly: no
	// copying goroutine inside exec, so Wait returns when the process
	// exits even if a grandchild keeps the pipe open.
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close() //nolint:errcheck // the parent's copy of the write end; the child holds its own
	if err != nil {
		// The explanation names the program, directory or interpreter;
		// it never contains the environment.
		fmt.Fprintf(out, "qinglong: could not start the command: %s\n", startFailure(err, c, l.dir))
		return result{state: run.AttemptFailed, code: ErrorCodeSpawnFailed}
	}
	pgid := cmd.Process.Pid
	procs := newTree(pgid, l.attemptID)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	started(pgid)

	timeout := time.NewTimer(time.Duration(c.TimeoutMs) * time.Millisecond)
	defer timeout.Stop()
	var cause string
	select {
	case err = <-waited:
	case <-timeout.C:
		cause = ErrorCodeTimeout
	case <-ctx.Done():
		cause = ErrorCodeStopped
	}
	// The job ends with its main process: whatever it left running, in
	// its group or escaped from it, goes too.
	procs.end(c.KillGrace(), hard)
	if cause != "" {
		err = <-waited
	}
	drain := time.NewTimer(pipeDrainLimit)
	defer drain.Stop()
	select {
	case <-copied:
	case <-drain.C:
		pr.Close() //nolint:errcheck // cuts off a copy a grandchild keeps open
		<-copied
	}
	return classify(cmd, err, cause)
}

func command(c task.Command) *exec.Cmd {
	if c.Mode == task.ModeShell {
		return exec.Command(c.Shell, "-c", c.Script)
	}
	return exec.Command(c.Path, c.Args...)
}

func classify(cmd *exec.Cmd, err error, cause string) result {
	switch cause {
	case ErrorCodeTimeout:
		return result{state: run.AttemptTimedOut, code: ErrorCodeTimeout}
	case ErrorCodeStopped:
		return result{state: run.AttemptCancelled, code: ErrorCodeStopped}
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return result{state: run.AttemptFailed, code: ErrorCodeSpawnFailed}
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return result{state: run.AttemptFailed, code: ErrorCodeSignaled}
	}
	code := int64(cmd.ProcessState.ExitCode())
	if code != 0 {
		return result{state: run.AttemptFailed, exitCode: &code, code: ErrorCodeExitNonZero}
	}
	return result{state: run.AttemptSucceeded, exitCode: &code}
}
