package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Error codes of a Result, recorded on attempts.
const (
	ErrorCodeExitNonZero = "exit_nonzero"
	ErrorCodeSignaled    = "killed_by_signal"
	ErrorCodeSpawnFailed = "spawn_failed"
	// ErrorCodeTimeout is the attempt state's own name, as the worker
	// protocol's stop reason, the metrics and the retry policy name it.
	ErrorCodeTimeout = "timed_out"
	ErrorCodeStopped = "server_stopped"
	ErrorCodeRunAs   = "run_as_unavailable"
	ErrorCodeWorkDir = "working_dir_unavailable"
)

// pipeDrainLimit bounds the wait for output after the process group is
// gone: a process that left the group (setsid) may still hold the pipe, and
// the attempt must not wait for it.
const pipeDrainLimit = 2 * time.Second

// Result is how one command ended.
type Result struct {
	// State is succeeded, failed, timed_out (its own timeout passed) or
	// cancelled (ctx of Run ended: Cause says why).
	State run.AttemptState
	// ExitCode is set when the process exited on its own.
	ExitCode *int64
	// Signal is the signal that killed the process when it was not sent
	// by us (a kill -9 by someone else, the OOM killer, a crash); 0
	// otherwise.
	Signal int
	// Code is one of the ErrorCode constants; empty on success.
	Code string
	// Cause is context.Cause of Run's ctx when that ended the command.
	Cause error
	// CleanupErr reports a working directory that could not be removed
	// after the command ended (for the operator's log).
	CleanupErr error
}

// Spec is one attempt's command and what it starts with.
type Spec struct {
	// Identity is the attempt's: its ids, names and occurrence, given to
	// the command as the QL_* variables (run.Identity.Env).
	Identity run.Identity
	Command  task.Command
	// BaseEnv starts the environment (e.g. PATH, HOME); the task's own
	// variables override it, the attempt's identity overrides both.
	BaseEnv []string
	// Secrets holds the resolved values of the command's secret
	// references (see Secrets.Resolve); they reach only the environment.
	Secrets map[string]string
	// DefaultRunAs is the account of a command whose task names none;
	// zero runs it as this process.
	DefaultRunAs task.RunAs
}

// Run prepares s's account and working directory and runs its command
// (see runIn) until it ends, its timeout passes or ctx ends; what cannot be
// prepared is explained in out and the command does not start. Closing
// hard cuts the kill grace short: SIGKILL follows SIGTERM at once.
func Run(ctx context.Context, hard <-chan struct{}, s Spec, out io.Writer, started func(pid int)) Result {
	c := s.Command
	runAs := c.RunAs
	if runAs.IsZero() {
		runAs = s.DefaultRunAs
	}
	acct, err := resolveAccount(runAs)
	if err != nil {
		fmt.Fprintf(out, "qinglong: the command was not started: %v\n", err)
		return Result{State: run.AttemptFailed, Code: ErrorCodeRunAs}
	}
	dir, cleanup, err := attemptDir(c, s.Identity.AttemptID, acct.cred)
	if err != nil {
		fmt.Fprintf(out, "qinglong: the command was not started: %v\n", err)
		return Result{State: run.AttemptFailed, Code: ErrorCodeWorkDir}
	}
	base := append(append([]string(nil), s.BaseEnv...), acct.env...)
	l := launch{attemptID: s.Identity.AttemptID, command: c, env: environment(base, s.Identity, c, s.Secrets), dir: dir, cred: acct.cred}
	res := runIn(ctx, hard, l, out, started)
	if err := cleanup(); err != nil {
		res.CleanupErr = fmt.Errorf("remove the working directory %s of attempt %s: %w", dir, s.Identity.AttemptID, err)
	}
	return res
}

// SecretRefs lists the secret references of c's environment.
func SecretRefs(c task.Command) []string {
	var refs []string
	for _, e := range c.Env {
		if e.SecretRef != "" {
			refs = append(refs, e.SecretRef)
		}
	}
	return refs
}

// CheckSecretProjects refuses the first of refs that is in another
// project's namespace than project's (task.CheckSecretProject). Whatever
// resolves secrets for a command checks it before reading the file: the
// apply refuses such a name, but a definition published before could
// still carry one.
func CheckSecretProjects(project string, refs []string) error {
	for _, ref := range refs {
		if err := task.CheckSecretProject(project, ref); err != nil {
			return err
		}
	}
	return nil
}

// Values lists the values of m (the secrets to mask).
func Values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// environment is the child's whole environment: the base (with the
// account's HOME, USER and LOGNAME when it runs as another account), the
// task's variables, then the attempt's identity (run.Identity.Env). Later
// entries win in os/exec, and the identity must win: publishing refuses
// QL_* names today, but a revision published before that rule could still
// carry one, QL_ATTEMPT_ID is how escaped descendants are traced to their
// attempt, and a command must be able to trust QL_SCHEDULED_AT.
func environment(base []string, id run.Identity, c task.Command, secrets map[string]string) []string {
	env := append([]string(nil), base...)
	for _, e := range c.Env {
		v := e.Value
		if e.SecretRef != "" {
			v = secrets[e.SecretRef]
		}
		env = append(env, e.Name+"="+v)
	}
	return append(env, id.Env()...)
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

// runIn runs l.command in its own process group, writing stdout and
// stderr to out, until it exits, its timeout passes or ctx ends. started
// is called once the process exists. Whatever ends the attempt, everything
// it started is ended afterwards (see tree.end): SIGTERM, then SIGKILL
// after the task's kill grace, or at once when hard closes.
func runIn(ctx context.Context, hard <-chan struct{}, l launch, out io.Writer, started func(pid int)) Result {
	becomeSubreaper()
	sealInherited()
	c := l.command
	cmd := command(c, l.env)
	cmd.Dir = l.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: l.cred}
	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(out, "qinglong: could not create the output pipe: %v\n", err)
		return Result{State: run.AttemptFailed, Code: ErrorCodeSpawnFailed}
	}
	defer pr.Close() //nolint:errcheck // the read end; the copy has ended or was cut off
	// An *os.File as stdout/stderr is handed to the child directly: no
	// copying goroutine inside exec, so Wait returns when the process
	// exits even if a grandchild keeps the pipe open.
	cmd.Stdout, cmd.Stderr = pw, pw
	// A stop that came while the attempt was being prepared wins over the
	// spawn: on a worker it is the lease clock, and a command started after
	// the worker gave its lease up could run beside the retry the replica
	// may already have granted elsewhere.
	if ctx.Err() != nil {
		pw.Close() //nolint:errcheck // nothing was started
		return Result{State: run.AttemptCancelled, Code: ErrorCodeStopped, Cause: context.Cause(ctx)}
	}
	err = startWaited(cmd)
	pw.Close() //nolint:errcheck // the parent's copy of the write end; the child holds its own
	if err != nil {
		// The explanation names the program, directory or interpreter;
		// it never contains the environment.
		fmt.Fprintf(out, "qinglong: could not start the command: %s\n", startFailure(err, c, l.dir))
		return Result{State: run.AttemptFailed, Code: ErrorCodeSpawnFailed}
	}
	pgid := cmd.Process.Pid
	procs := newTree(pgid, l.attemptID)
	copied := make(chan struct{})
	tail := &lineEnd{w: out}
	go func() {
		defer close(copied)
		_, _ = io.Copy(tail, pr)
	}()
	waited := make(chan error, 1)
	go func() { waited <- waitWaited(cmd) }()
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
	how, left := procs.end(c.KillGrace(), hard)
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
	res := classify(cmd, err, cause)
	// After <-copied: the copy has written its last byte.
	switch cause {
	case ErrorCodeTimeout:
		fmt.Fprint(out, StoppedLine(TimeoutCause(time.Duration(c.TimeoutMs)*time.Millisecond), how, c.KillGrace(), tail.open))
	case ErrorCodeStopped:
		res.Cause = context.Cause(ctx)
		fmt.Fprint(out, StoppedLine(res.Cause.Error(), how, c.KillGrace(), tail.open))
	default:
		if left > 0 {
			fmt.Fprint(out, LeftRunningLine(left, how, c.KillGrace(), tail.open))
		}
	}
	return res
}

// lineEnd passes output on to w and remembers whether it left a line open
// (its last byte is not a newline), so a marker after it starts a line of
// its own without leaving an empty one.
type lineEnd struct {
	w    io.Writer
	open bool
}

func (l *lineEnd) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.open = p[n-1] != '\n'
	}
	return n, err
}

// scriptVariable carries a shell-mode script to its shell. A command
// line is readable by every account of the machine (ps,
// /proc/PID/cmdline), an environment only by the process's own account
// and root; and a script often holds what its author did not mean to
// show the machine's other accounts (a cookie, a token in a URL).
const scriptVariable = "QL_SHELL_SCRIPT"

// runScript is a shell-mode command's whole command line: it takes the
// script out of the environment, so that nothing the script starts
// inherits it, and runs it; unset first inside eval, the variable holding
// it is gone before the script's first command, on the script's first
// line so that the shell's line numbers stay the script's.
const runScript = `ql_script=$` + scriptVariable + `; unset ` + scriptVariable + `; eval "unset ql_script; $ql_script"`

func command(c task.Command, env []string) *exec.Cmd {
	if c.Mode == task.ModeShell {
		cmd := exec.Command(c.Shell, "-c", runScript)
		// Last, so that it wins over any entry of the same name (os/exec
		// keeps the last).
		cmd.Env = append(slices.Clip(env), scriptVariable+"="+c.Script)
		return cmd
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = env
	return cmd
}

func classify(cmd *exec.Cmd, err error, cause string) Result {
	switch cause {
	case ErrorCodeTimeout:
		return Result{State: run.AttemptTimedOut, Code: ErrorCodeTimeout}
	case ErrorCodeStopped:
		return Result{State: run.AttemptCancelled, Code: ErrorCodeStopped}
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return Result{State: run.AttemptFailed, Code: ErrorCodeSpawnFailed}
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return Result{State: run.AttemptFailed, Code: ErrorCodeSignaled, Signal: int(ws.Signal())}
	}
	code := int64(cmd.ProcessState.ExitCode())
	if code != 0 {
		return Result{State: run.AttemptFailed, ExitCode: &code, Code: ErrorCodeExitNonZero}
	}
	return Result{State: run.AttemptSucceeded, ExitCode: &code}
}

// DefaultBaseEnv is the base environment of commands when none is
// configured: PATH, HOME, LANG and TZ of this process, when set. Nothing
// else of the runner's own environment (its credentials, its settings)
// reaches a command.
func DefaultBaseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
