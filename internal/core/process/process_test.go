package process

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

func shell(script string, timeout time.Duration) task.Command {
	return task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: script, TimeoutMs: timeout.Milliseconds()}
}

type syncBuffer = syncbuf.Buffer

// runCommand runs c as the dispatcher would with no task account, in
// c's working directory or in the test's temporary directory.
func runCommand(ctx context.Context, c task.Command, env []string, out io.Writer, started func(int)) Result {
	dir := c.WorkingDir
	if dir == "" {
		dir = os.TempDir()
	}
	// The attempt is the one env names, if it names one: a real launch's
	// environment always carries its own attempt's id.
	attemptID := "test"
	for _, kv := range env {
		if id, ok := strings.CutPrefix(kv, "QL_ATTEMPT_ID="); ok {
			attemptID = id
		}
	}
	return runIn(ctx, nil, launch{attemptID: attemptID, command: c, env: env, dir: dir}, out, started)
}

func runShell(t *testing.T, ctx context.Context, script string, timeout time.Duration) (Result, string, int) {
	t.Helper()
	var out syncBuffer
	pid := 0
	res := runCommand(ctx, shell(script, timeout), []string{"PATH=/usr/bin:/bin"}, &out, func(p int) { pid = p })
	return res, out.String(), pid
}

// processGone reports whether pid no longer runs: it does not exist, or it
// is a zombie waiting for a reaper (dead, just not yet collected).
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// requireGone waits (bounded) for SIGKILL to take effect; death after a
// SIGKILL is asynchronous but immediate in practice.
func requireGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !processGone(pid) {
		select {
		case <-deadline:
			t.Fatalf("%s (pid %d) is still running", what, pid)
		case <-tick.C:
		}
	}
}

func grandchildPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "grandchild.pid"))
	if err != nil {
		t.Fatalf("the script did not record its grandchild: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestTimeoutKillsTheWholeProcessGroupGrandchildrenIncluded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := fmt.Sprintf(`sleep 300 & echo $! > %s/grandchild.pid; wait`, dir)
	start := time.Now()
	res, _, pid := runShell(t, t.Context(), script, 300*time.Millisecond)
	if res.State != run.AttemptTimedOut || res.Code != ErrorCodeTimeout || res.ExitCode != nil {
		t.Fatalf("result %+v; want timed_out", res)
	}
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Fatalf("a 300ms timeout took %s", elapsed)
	}
	requireGone(t, pid, "the shell")
	requireGone(t, grandchildPID(t, dir), "the grandchild sleep")
}

func TestLeftoverBackgroundProcessesDieWithTheMainProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := fmt.Sprintf(`sleep 300 & echo $! > %s/grandchild.pid; echo done`, dir)
	res, out, _ := runShell(t, t.Context(), script, time.Hour)
	if want := "done\n" + LeftRunningLine(1, EndedOnTerm, task.DefaultKillGrace, false); res.State != run.AttemptSucceeded || out != want {
		t.Fatalf("result %+v, output %q; want succeeded with %q", res, out, want)
	}
	requireGone(t, grandchildPID(t, dir), "the background sleep")
}

func TestExitStatusDecidesTheResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		script string
		state  run.AttemptState
		code   string
		exit   int64
	}{
		{"echo ok", run.AttemptSucceeded, "", 0},
		{"exit 3", run.AttemptFailed, ErrorCodeExitNonZero, 3},
		{"kill -9 $$", run.AttemptFailed, ErrorCodeSignaled, -1},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			t.Parallel()
			res, _, _ := runShell(t, t.Context(), c.script, time.Minute)
			if res.State != c.state || res.Code != c.code {
				t.Fatalf("result %+v; want %s (%s)", res, c.state, c.code)
			}
			if c.exit >= 0 && (res.ExitCode == nil || *res.ExitCode != c.exit) {
				t.Fatalf("exit code %v; want %d", res.ExitCode, c.exit)
			}
			if c.exit < 0 && res.ExitCode != nil {
				t.Fatalf("a signalled process reported exit code %d", *res.ExitCode)
			}
		})
	}
}

func TestArgvModeRunsWithoutAShellInItsWorkingDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out syncBuffer
	c := task.Command{Mode: task.ModeArgv, Path: "/bin/sh", Args: []string{"-c", `pwd; printf '%s\n' "$1"`, "sh", "a b; $(not expanded)"}, WorkingDir: dir, TimeoutMs: 60_000}
	res := runCommand(t.Context(), c, nil, &out, func(int) {})
	want := dir + "\na b; $(not expanded)\n"
	if res.State != run.AttemptSucceeded || out.String() != want {
		t.Fatalf("result %+v output %q; want %q", res, out.String(), want)
	}
}

func TestAProgramThatCannotStartFailsWithTheReasonInItsLog(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	c := task.Command{Mode: task.ModeArgv, Path: "/nonexistent/program", TimeoutMs: 60_000}
	called := false
	res := runCommand(t.Context(), c, nil, &out, func(int) { called = true })
	if res.State != run.AttemptFailed || res.Code != ErrorCodeSpawnFailed || called {
		t.Fatalf("result %+v (started callback: %v); want spawn_failed without a start", res, called)
	}
	if !strings.Contains(out.String(), "/nonexistent/program") {
		t.Fatalf("log %q does not say what could not start", out.String())
	}
}

func TestStoppingTheExecutorCancelsARunningCommand(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	var out syncBuffer
	started := make(chan int, 1)
	done := make(chan Result, 1)
	go func() {
		done <- runCommand(ctx, shell("sleep 300", time.Hour), nil, &out, func(pid int) { started <- pid })
	}()
	pid := <-started
	cancel()
	res := <-done
	if res.State != run.AttemptCancelled || res.Code != ErrorCodeStopped {
		t.Fatalf("result %+v; want cancelled by the stop", res)
	}
	requireGone(t, pid, "the cancelled command")
}

// A stop that came before the spawn wins: nothing is started, and the
// result is cancelled with the stop's cause.
func TestAStopBeforeTheSpawnStartsNothing(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := fmt.Errorf("the lease could not be renewed")
	cancel(cause)
	called := false
	res := runCommand(ctx, shell("touch "+marker, time.Minute), []string{"PATH=/usr/bin:/bin"}, io.Discard, func(int) { called = true })
	if res.State != run.AttemptCancelled || res.Code != ErrorCodeStopped || res.Cause != cause || called {
		t.Fatalf("result %+v (started called: %v); want cancelled with the stop's cause and nothing started", res, called)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the command ran after its stop: %v", err)
	}
}

func TestACommandEndedByItsTimeoutEndsItsLogWithALineSayingSo(t *testing.T) {
	t.Parallel()
	// It ignores SIGTERM, so the line names the SIGKILL after the grace.
	c := shell("trap '' TERM; echo working; sleep 300", 300*time.Millisecond)
	c.KillGraceMs = 200
	var log syncBuffer
	res := runCommand(t.Context(), c, []string{"PATH=/usr/bin:/bin"}, &log, func(int) {})
	out := log.String()
	want := "working\n[qinglong: the command was stopped: its timeout of 300ms passed (SIGTERM, then SIGKILL after the kill grace of 200ms)]\n"
	if res.State != run.AttemptTimedOut || res.Code != "timed_out" || out != want {
		t.Fatalf("result %+v, log %q; want timed_out (code timed_out), log %q", res, out, want)
	}
}

func TestACommandStoppedByItsRunnerEndsItsLogWithALineNamingTheCause(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(t.Context())
	var out syncBuffer
	started := make(chan int, 1)
	done := make(chan Result, 1)
	go func() {
		done <- runCommand(ctx, shell("sleep 300", time.Hour), nil, &out, func(pid int) { started <- pid })
	}()
	<-started
	cancel(fmt.Errorf("the run was asked to cancel"))
	res := <-done
	want := "[qinglong: the command was stopped: the run was asked to cancel (SIGTERM; it ended within the kill grace of 5s)]\n"
	if res.State != run.AttemptCancelled || out.String() != want {
		t.Fatalf("result %+v, log %q; want cancelled, log %q", res, out.String(), want)
	}
}

func TestASignalThatKilledTheCommandIsRecordedByNumberAndName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		script string
		signal int
		name   string
	}{{"kill -9 $$", 9, "SIGKILL"}, {"kill -SEGV $$", 11, "SIGSEGV"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, _, _ := runShell(t, t.Context(), c.script, time.Minute)
			if res.Code != ErrorCodeSignaled || res.Signal != c.signal || run.SignalName(res.Signal) != c.name {
				t.Fatalf("result %+v (signal name %q); want killed_by_signal by %d (%s)", res, run.SignalName(res.Signal), c.signal, c.name)
			}
			if msg := run.SignalMessage(res.Signal); msg != fmt.Sprintf("the command was killed by signal %d (%s)", c.signal, c.name) {
				t.Fatalf("message %q does not name the signal", msg)
			}
		})
	}
}

// The stop line is a line of its own: after output that ends a line it
// follows at once, after output that leaves one open it starts a new one.
func TestTheStopLineStartsALineOfItsOwnWithoutAnEmptyOne(t *testing.T) {
	t.Parallel()
	for script, want := range map[string]string{
		"echo working; sleep 300":   "working\n[qinglong: the command was stopped: its timeout of 300ms passed",
		"printf working; sleep 300": "working\n[qinglong: the command was stopped: its timeout of 300ms passed",
	} {
		var log syncBuffer
		runCommand(t.Context(), shell(script, 300*time.Millisecond), []string{"PATH=/usr/bin:/bin"}, &log, func(int) {})
		if !strings.HasPrefix(log.String(), want) {
			t.Errorf("%s: log %q; want it to start %q", script, log.String(), want)
		}
	}
}

// A command gets standard input, output and error only: a descriptor the
// server or worker was started with (a shell's `9>file`, a supervisor's
// pipe) is not open in it, so a command — under another account too —
// cannot write or read what it points at.
func TestACommandInheritsNoDescriptorItsRunnerWasStartedWith(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runner-only")
	// syscall.Open, unlike os.OpenFile, leaves the descriptor open across
	// exec, as one the process was started with is.
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	res, out, _ := runShell(t, t.Context(), fmt.Sprintf(`echo written by the command >&%d && echo inherited; ls /proc/$$/fd`, fd), 10*time.Second)
	if res.State != run.AttemptSucceeded {
		t.Fatalf("the command ended %+v:\n%s", res, out)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 0 || strings.Contains(out, "inherited") {
		t.Fatalf("the command wrote %q through descriptor %d of its runner; output:\n%s", written, fd, out)
	}
	var open []string
	for _, name := range strings.Fields(out) {
		if n, err := strconv.Atoi(name); err == nil && n > 2 {
			open = append(open, name)
		}
	}
	if len(open) != 0 {
		t.Fatalf("the command's shell has descriptors %v open beside 0, 1 and 2; output:\n%s", open, out)
	}
}
