//go:build linux

package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startGroup starts a shell script in its own process group, as the
// executor runs commands, reaping it in the background (a dead leader must
// not linger as our zombie), and returns its pid and the start instant.
func startGroup(t *testing.T, script string) (int, int64) {
	t.Helper()
	startedAt := time.Now().UnixMilli()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return startLeader(t, cmd), startedAt
}

// startLeader starts cmd, which leads its own group, reaps it in the
// background, kills its group when the test ends, and returns its pid
// once it runs.
func startLeader(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	go cmd.Wait() //nolint:errcheck // only reaps
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	waitRunning(t, pid)
	return pid
}

func waitRunning(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !groupRunning(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d never ran", pgid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A process under the attempt's pid that did not start when the attempt
// did may be an unrelated process that reused the pid: it is left alone.
func TestOrphanWhosePidMayBeReusedIsLeftAlone(t *testing.T) {
	t.Parallel()
	pid, startedAt := startGroup(t, "sleep 300")
	got, err := EndOrphan(pid, startedAt-10*time.Minute.Milliseconds())
	if err != nil || got != OrphanLeft {
		t.Fatalf("end orphan with a start time 10 min off: %v, %v; want it left alone", got, err)
	}
	if !groupRunning(pid) {
		t.Fatal("the process group was ended although it could not be proven to be the command")
	}
}

// The command a crashed server left running is ended, grandchildren too.
func TestOrphanOfALostAttemptIsEndedWithItsGrandchildren(t *testing.T) {
	t.Parallel()
	pid, startedAt := startGroup(t, "sleep 300 & sleep 300; wait")
	got, err := EndOrphan(pid, startedAt)
	if err != nil || got != OrphanEnded {
		t.Fatalf("end orphan: %v, %v; want ended", got, err)
	}
	if groupRunning(pid) {
		t.Fatal("something of the process group still runs")
	}
}

// The shell is gone but the command it started in the background still
// runs in its group: the kernel does not reuse a pid in use as a process
// group id, so the group is the command's and is ended.
func TestOrphanWhoseLeaderIsGoneIsStillEnded(t *testing.T) {
	t.Parallel()
	pid, startedAt := startGroup(t, "sleep 300 & exit 0")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, _, err := procStart(pid); err != nil {
			break // the leader is gone (reaped)
		}
		if time.Now().After(deadline) {
			t.Fatal("the shell never exited")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !groupRunning(pid) {
		t.Fatal("the background sleep is not running; the fault did not happen")
	}
	got, err := EndOrphan(pid, startedAt)
	if err != nil || got != OrphanEnded || groupRunning(pid) {
		t.Fatalf("end orphan without its leader: %v, %v (group running: %v); want ended", got, err, groupRunning(pid))
	}
}

// Nothing left of the command: nothing to end.
func TestOrphanThatFinishedIsGone(t *testing.T) {
	t.Parallel()
	// It ends when told, not after a time that a slow poll could miss.
	done := filepath.Join(t.TempDir(), "done")
	pid, startedAt := startGroup(t, "until [ -e "+done+" ]; do sleep 0.01; done")
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for groupRunning(pid) {
		if time.Now().After(deadline) {
			t.Fatal("the command never finished")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got, err := EndOrphan(pid, startedAt); err != nil || got != OrphanGone {
		t.Fatalf("end a finished command: %v, %v; want gone", got, err)
	}
}

// startMarked runs script in a session of its own whose environment
// carries attemptID's marker, and returns its pid once it runs. Every
// process of the script stays in the session's group, so one signal to
// the group cleans up whatever a failing test leaves.
func startMarked(t *testing.T, attemptID, script string) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "QL_ATTEMPT_ID=" + attemptID}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return startLeader(t, cmd)
}

// A process carrying an attempt's marker is ended even without its group
// id (it left the group, or its pid was never recorded); a process of
// another attempt is not touched.
func TestEndMarkedEndsOnlyTheAttemptsMarkedProcesses(t *testing.T) {
	t.Parallel()
	mine, other := startMarked(t, "attempt-marked-1", "sleep 300"), startMarked(t, "attempt-marked-2", "sleep 300")
	n, err := EndMarked("attempt-marked-1")
	if err != nil || n == 0 {
		t.Fatalf("EndMarked: %d, %v; want the marked processes ended", n, err)
	}
	if groupRunning(mine) {
		t.Fatal("the marked process still runs")
	}
	if !groupRunning(other) {
		t.Fatal("a process of another attempt was ended")
	}
}

// A marked command that ignores SIGTERM and keeps forking while it is
// ended is ended whole: each pass signals every marked process it finds,
// so a child forked after a listing is not left out of the SIGKILL.
func TestEndMarkedEndsACommandThatForksWhileItIsEnded(t *testing.T) {
	t.Parallel()
	const id = "attempt-marked-forking"
	startMarked(t, id, "trap '' TERM; while :; do sleep 300 & sleep 300 & sleep 0.01; done")
	// Its first child shows the shell has set its trap: a SIGTERM before
	// that would end it at once.
	tr := &tree{attemptID: id}
	markedNow := func() []int {
		var out []int
		for _, p := range processTable() {
			if !p.zombie && tr.marked(p.pid) {
				out = append(out, p.pid)
			}
		}
		return out
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(markedNow()) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the command never forked")
		}
		time.Sleep(10 * time.Millisecond)
	}
	n, err := EndMarked(id)
	if err != nil || n < 2 {
		t.Fatalf("EndMarked: %d, %v; want the command and its children ended", n, err)
	}
	if left := markedNow(); len(left) > 0 {
		t.Errorf("marked processes %v still run", left)
	}
}
