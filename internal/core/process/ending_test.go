package process

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
)

// killOnCleanup ends a process the test could not prove gone, so a
// failing test leaves nothing behind.
func killOnCleanup(t *testing.T, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("descendants outside the process group are followed on Linux only")
	}
}

// A command that traps SIGTERM gets it first and may clean up; it is
// killed only when its kill grace has passed.
func TestTimeoutSendsSIGTERMFirstAndSIGKILLAfterTheGrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "terminated")
	c := shell(fmt.Sprintf(`trap 'echo term > %s' TERM; echo $$ > %s/grandchild.pid; while :; do sleep 0.05; done`, marker, dir), 200*time.Millisecond)
	c.KillGraceMs = 700
	start := time.Now()
	var out syncBuffer
	res := runCommand(t.Context(), c, []string{"PATH=/usr/bin:/bin"}, &out, func(int) {})
	elapsed := time.Since(start)
	if res.State != run.AttemptTimedOut {
		t.Fatalf("result %+v; want timed_out", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the command never saw SIGTERM (no marker): %v", err)
	}
	// The trap keeps the loop alive: only SIGKILL, after the grace, ends it.
	if elapsed < 200*time.Millisecond+700*time.Millisecond {
		t.Fatalf("the command was ended %s after start, before its 200ms timeout plus 700ms grace", elapsed)
	}
	requireGone(t, grandchildPID(t, dir), "the command that ignored SIGTERM")
}

// A grandchild that left the process group with setsid is found and ended
// when the attempt times out.
func TestTimeoutEndsASetsidGrandchild(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	dir := t.TempDir()
	script := fmt.Sprintf(`setsid sleep 300 & echo $! > %s/grandchild.pid; wait`, dir)
	res, _, _ := runShell(t, t.Context(), script, 300*time.Millisecond)
	pid := grandchildPID(t, dir)
	killOnCleanup(t, pid)
	if res.State != run.AttemptTimedOut {
		t.Fatalf("result %+v; want timed_out", res)
	}
	requireGone(t, pid, "the setsid grandchild")
}

// The same when the server stops the attempt.
func TestStopEndsASetsidGrandchild(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	done := make(chan Result, 1)
	go func() {
		var out syncBuffer
		script := fmt.Sprintf(`setsid sleep 300 & echo $! > %s/grandchild.pid; wait`, dir)
		done <- runCommand(ctx, shell(script, time.Hour), []string{"PATH=/usr/bin:/bin"}, &out, func(int) { close(started) })
	}()
	<-started
	waitFile(t, filepath.Join(dir, "grandchild.pid"))
	pid := grandchildPID(t, dir)
	killOnCleanup(t, pid)
	cancel()
	if res := <-done; res.State != run.AttemptCancelled {
		t.Fatalf("result %+v; want cancelled", res)
	}
	requireGone(t, pid, "the setsid grandchild")
}

// A command that exits normally but left a daemon behind — in another
// session, its parent gone — does not keep it: the daemon still carries
// the attempt's QL_ATTEMPT_ID and was re-parented to this process.
func TestADaemonLeftBehindByAFinishedCommandIsEnded(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	dir := t.TempDir()
	script := fmt.Sprintf(`(setsid sleep 300 & echo $! > %s/grandchild.pid); echo done`, dir)
	var out syncBuffer
	// An attempt id of its own: commands of other attempts are children
	// of this process too, and one carrying the same marker would be
	// taken for this attempt's and ended mid-way.
	res := runCommand(t.Context(), shell(script, time.Minute), []string{"PATH=/usr/bin:/bin", "QL_ATTEMPT_ID=" + dir}, &out, func(int) {})
	pid := grandchildPID(t, dir)
	killOnCleanup(t, pid)
	if want := "done\n" + LeftRunningLine(1, EndedOnTerm, task.DefaultKillGrace, false); res.State != run.AttemptSucceeded || out.String() != want {
		t.Fatalf("result %+v, output %q; want succeeded with %q", res, out.String(), want)
	}
	requireGone(t, pid, "the daemon the command left behind")
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A daemon adopted by this server (its subreaper) that exits on its own
// while the attempt runs is reaped, not left a zombie for the server's
// lifetime.
func TestAnAdoptedDaemonThatExitedIsReaped(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	dir := t.TempDir()
	script := fmt.Sprintf(`(setsid sh -c 'echo $$ > %s/grandchild.pid' &); sleep 0.5; echo done`, dir)
	var out syncBuffer
	res := runCommand(t.Context(), shell(script, time.Minute), []string{"PATH=/usr/bin:/bin"}, &out, func(int) {})
	if res.State != run.AttemptSucceeded {
		t.Fatalf("result %+v; want succeeded", res)
	}
	pid := grandchildPID(t, dir)
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		if os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Fatalf("the adopted daemon %d is still in the process table: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
