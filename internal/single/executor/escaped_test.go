package executor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/zombie"
)

// A command's main process that ends while its background processes still
// run has them ended, and the Run's log says so after its output.
func TestTheLogSaysWhatTheCommandLeftRunningWhenItsMainProcessEnded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	runID := h.admit(t, shell(`sleep 300 & echo done`, time.Minute))
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	got := h.detail(t, runID)
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), got.Attempts[0].ID, &log); err != nil {
		t.Fatal(err)
	}
	if want := "done\n[qinglong: the command's main process ended, leaving 1 process it started running; it was ended (SIGTERM; it ended within the kill grace of 5s)"; !strings.HasPrefix(log.String(), want) {
		t.Fatalf("log %q; want it to start %q", log.String(), want)
	}
}

// A descendant that escaped its attempt unseen (a new session, its
// environment cleared) and died after the attempt ended is collected by
// the idle executor, though no other attempt ends: the executor
// adopted it, and nothing else would wait for it. Not parallel: an attempt
// ending in another test would collect it too.
func TestAnIdleExecutorReapsADeadEscapedDescendant(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "daemon.pid")
	h.admit(t, shell(fmt.Sprintf(`env -i setsid /bin/sh -c 'echo $$ > %[1]s; exec /bin/sleep 300 >/dev/null 2>&1' &
while [ ! -s %[1]s ]; do sleep 0.01; done`, pidFile), time.Minute))
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	sig.wait(t, 1)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("the escaped descendant %d is not running (%v); the test needs it alive after its attempt", pid, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead escaped descendant %d is still there: the idle executor did not reap it", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A descendant that left its command's process group but not the server's
// session (`set -m; cmd &`, a daemon that forks without setsid) and died
// while the command still ran is collected once the command's end makes
// the server its parent: it stayed a zombie of the server for the
// server's life, since the attempt's end finds only what still runs. It
// ran nothing any more, so the Run's log names no process left running.
func TestADeadDescendantThatLeftItsCommandsGroupIsReapedOnceTheServerAdoptsIt(t *testing.T) {
	t.Parallel()
	left := zombie.New(t)
	h := newHarness(t)
	runID := h.admit(t, shell(left.Script(), time.Minute))
	d, sig := h.dispatcher(t, dispatcherOpts{})
	d.Wake()
	left.Dead(t)
	left.Release(t)
	sig.wait(t, 1)
	left.RequireReaped(t)
	got := h.detail(t, runID)
	var log bytes.Buffer
	if err := ReadLog(filepath.Join(h.dir, "logs"), got.Attempts[0].ID, &log); err != nil {
		t.Fatal(err)
	}
	if got.Attempts[0].State != run.AttemptSucceeded || log.Len() != 0 {
		t.Fatalf("attempt %+v, log %q; want it succeeded with an empty log", got.Attempts[0], log.String())
	}
}
