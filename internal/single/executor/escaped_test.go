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
// the executor's next round, though no other attempt ends: the executor
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
	d.Wake()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead escaped descendant %d is still there: the idle executor did not reap it", pid)
		}
		time.Sleep(10 * time.Millisecond)
		d.Wake()
	}
}
