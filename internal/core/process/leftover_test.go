package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// When a command's main process ends while processes it started still run
// (a background job, one that ignores SIGTERM), they are ended, and the
// log says how many there were and how they were ended, after the
// command's own output.
func TestProcessesTheMainProcessLeftRunningAreEndedAndTheLogSaysHowMany(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	dir := t.TempDir()
	// The one that ignores SIGTERM says so once the signal is ignored, so
	// the main process never ends before it could be killed by it.
	script := fmt.Sprintf(`(trap '' TERM; echo $$ > %[1]s/ready; exec sleep 300) &
echo $! > %[1]s/grandchild.pid
sleep 301 &
while [ ! -s %[1]s/ready ]; do sleep 0.01; done
printf 'main done'`, dir)
	c := shell(script, time.Minute)
	c.KillGraceMs = 200
	var out syncBuffer
	res := runCommand(t.Context(), c, []string{"PATH=/usr/bin:/bin"}, &out, func(int) {})
	pid := grandchildPID(t, dir)
	killOnCleanup(t, pid)
	want := "main done\n[qinglong: the command's main process ended, leaving 2 processes it started running; they were ended " +
		"(SIGTERM, then SIGKILL after the kill grace of 200ms): a Run ends with its main process, so run a service under a service manager, not as a task]\n"
	if res.State != run.AttemptSucceeded || out.String() != want {
		t.Fatalf("result %+v, log %q; want succeeded and %q", res, out.String(), want)
	}
	requireGone(t, pid, "the process that ignored SIGTERM")
}

// A descendant that escaped its attempt unseen (a new session, its
// environment cleared) and died after the attempt ended is collected by
// the reaper's sweep, with no other attempt ending: this process adopted
// it, and nothing else would wait for it. Not parallel: an attempt ending
// in another test would collect it too.
func TestADeadEscapedDescendantIsReapedWithoutAnotherAttemptEnding(t *testing.T) {
	requireLinux(t)
	dir := t.TempDir()
	script := fmt.Sprintf(`env -i setsid /bin/sh -c 'echo $$ > %[1]s/grandchild.pid; exec /bin/sleep 300 >/dev/null 2>&1' &
while [ ! -s %[1]s/grandchild.pid ]; do sleep 0.01; done`, dir)
	res, _, _ := runShell(t, t.Context(), script, time.Minute)
	pid := grandchildPID(t, dir)
	killOnCleanup(t, pid)
	if res.State != run.AttemptSucceeded || processGone(pid) {
		t.Fatalf("result %+v, escaped descendant gone: %t; want it succeeded and left running unseen", res, processGone(pid))
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitZombie(t, pid)
	sweepAdopted()
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); !os.IsNotExist(err) {
		t.Fatalf("the dead escaped descendant %d is still there (%v): it was not reaped", pid, err)
	}
}

// waitZombie waits for pid, a child of this process that was killed, to be
// a zombie.
func waitZombie(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			t.Fatalf("process %d: %v; want it a zombie", pid, err)
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not die", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
