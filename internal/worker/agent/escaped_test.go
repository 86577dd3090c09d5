package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/zombie"
)

// A command's main process that ends while its background processes still
// run has them ended, and the attempt's log says so after its output, as
// under the local executor.
func TestTheLogSaysWhatTheCommandLeftRunningWhenItsMainProcessEnded(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	g := in.enqueue(t, shell(`sleep 300 & echo done`))
	runAgent(t, in, nil)
	in.completed(g.AttemptID)
	log := string(in.attempt(g.AttemptID).log)
	if want := "done\n[qinglong: the command's main process ended, leaving 1 process it started running; it was ended (SIGTERM; it ended within the kill grace of 5s)"; !strings.HasPrefix(log, want) {
		t.Fatalf("log %q; want it to start %q", log, want)
	}
}

// A descendant that escaped its attempt unseen (a new session, its
// environment cleared) and died after the attempt ended is collected by
// the idle worker, though no other attempt ends: the worker adopted it,
// and nothing else would wait for it. Not parallel: an attempt ending in
// another test would collect it too.
func TestAnIdleWorkerReapsADeadEscapedDescendant(t *testing.T) {
	in := newIngress(t, 30_000)
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	g := in.enqueue(t, shell(fmt.Sprintf(`env -i setsid /bin/sh -c 'echo $$ > %[1]s; exec /bin/sleep 300 >/dev/null 2>&1' &
while [ ! -s %[1]s ]; do sleep 0.01; done`, pidFile)))
	runAgent(t, in, nil)
	in.completed(g.AttemptID)
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
	waitFor(t, "the idle worker to reap the dead escaped descendant", func() bool {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		return os.IsNotExist(err)
	})
}

// A descendant that left its command's process group but not the worker's
// session (`set -m; cmd &`, a daemon that forks without setsid) and died
// while the command still ran is collected once the command's end makes
// the worker its parent: it stayed a zombie of the worker for the
// worker's life, since the attempt's end finds only what still runs. It
// ran nothing any more, so the attempt's log names no process left
// running.
func TestADeadDescendantThatLeftItsCommandsGroupIsReapedOnceTheWorkerAdoptsIt(t *testing.T) {
	t.Parallel()
	left := zombie.New(t)
	in := newIngress(t, 30_000)
	g := in.enqueue(t, shell(left.Script()))
	runAgent(t, in, nil)
	left.Dead(t)
	left.Release(t)
	done := in.completed(g.AttemptID)
	left.RequireReaped(t)
	if log := in.attempt(g.AttemptID).log; done.Outcome != workerproto.OutcomeExited || done.ExitCode == nil || *done.ExitCode != 0 || len(log) != 0 {
		t.Fatalf("completion %+v, log %q; want the command exited 0 with an empty log", done, log)
	}
}
