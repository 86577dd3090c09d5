package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A grant the worker will not start — here one more than it asked for —
// is given back at once, so its Run is not held until the lease passes;
// the grant it asked for runs. A replica older than the request answers it
// not found: the worker says once that the grant waits for its lease, and
// goes on working.
func TestAWorkerGivesBackGrantsItWillNotStartAndToleratesAReplicaOlderThanTheRequest(t *testing.T) {
	t.Parallel()
	for _, older := range []bool{false, true} {
		in := newIngress(t, 30_000)
		in.overGrant, in.beforeGiveBack = 1, older
		asked := in.enqueue(t, shell(`echo asked`))
		extra := in.enqueue(t, shell(`echo extra`))
		w := runAgent(t, in, func(c *Config) { c.Concurrency = 1 })
		if done := in.completed(asked.AttemptID); done.Outcome != workerproto.OutcomeExited {
			t.Fatalf("older replica %v: the grant asked for: %+v", older, done)
		}
		in.mu.Lock()
		given, starts := append([]workerproto.GiveBackRequest(nil), in.givenBack...), in.attempts[extra.AttemptID].starts
		in.mu.Unlock()
		switch {
		case starts != 0:
			t.Fatalf("older replica %v: the grant over the worker's capacity was started", older)
		case !older && (len(given) != 1 || given[0].AttemptID != extra.AttemptID || given[0].Reason != workerproto.GiveBackOverCapacity):
			t.Fatalf("given back %+v, want the extra grant, over capacity\n%s", given, w.logs)
		case older:
			waitFor(t, "the worker to say the grant waits for its lease", func() bool {
				return strings.Count(w.logs.String(), `"code":"grant_give_back_unknown"`) == 1
			})
		}
		if _, err := w.stop(); err != nil {
			t.Fatalf("older replica %v: the worker stopped with %v", older, err)
		}
	}
}

// A worker whose session expired registers again; its own registration
// replaces the expired session, so a renewal of a command it pulled under
// that session — even one answered before the new session's id reaches
// the worker — says replaced. That is no news: the worker is not stopped,
// and its command runs to its end.
func TestAWorkerIsNotStoppedByItsOwnRegistrationReplacingItsExpiredSession(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 900) // renewals every 300 ms
	in.registerDelay = time.Second
	dir := t.TempDir()
	g := in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 3; echo finished`, dir)))
	w := runAgent(t, in, nil)
	readPid(t, filepath.Join(dir, "pid"))
	in.mu.Lock()
	in.state = workerproto.SessionExpired
	in.mu.Unlock()
	if done := in.completed(g.AttemptID); done.Outcome != workerproto.OutcomeExited || string(in.attempt(g.AttemptID).log) != "finished\n" {
		t.Fatalf("the command was disturbed by the worker's new session: %+v\n%s", done, w.logs)
	}
	in.mu.Lock()
	registers := in.registers
	in.mu.Unlock()
	if registers != 2 || strings.Contains(w.logs.String(), `"code":"session_replaced"`) {
		t.Fatalf("%d registrations; the worker took its own new session for a replacement:\n%s", registers, w.logs)
	}
	if _, err := w.stop(); err != nil {
		t.Fatalf("the worker stopped with %v\n%s", err, w.logs)
	}
}

// A worker whose every slot is busy keeps a watch waiting, so a
// replacement stops it — its command killed — within moments, not at its
// next renewal or heartbeat (both 10 s away here). A replica older than
// the watch refuses it: the worker says so once and goes on, hearing a
// replacement at its next renewal or heartbeat as before.
func TestAWorkerWithEverySlotBusyHearsItsReplacementFromItsWatchAndToleratesAReplicaOlderThanTheWatch(t *testing.T) {
	t.Parallel()
	for _, older := range []bool{false, true} {
		in := newIngress(t, 30_000)
		in.beforeWatch = older
		dir := t.TempDir()
		in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
		w := runAgent(t, in, func(c *Config) { c.Concurrency = 1 })
		pid := readPid(t, filepath.Join(dir, "pid"))
		if older {
			waitFor(t, "the worker to say the replica takes no watch", func() bool {
				return strings.Count(w.logs.String(), `"code":"session_watch_unknown"`) == 1
			})
			if processGone(pid) {
				t.Fatal("the worker stopped its command when the replica refused its watch")
			}
			if _, err := w.stop(); err != nil {
				t.Fatalf("the worker stopped with %v against a replica older than the watch\n%s", err, w.logs)
			}
			continue
		}
		replaceBusyWorker(t, in, w, pid)
		in.mu.Lock()
		watches := in.watches
		in.mu.Unlock()
		if watches == 0 {
			t.Fatal("no watch told the worker: its replacement came another way")
		}
	}
}

// A worker whose every slot is busy, on the one address of a replica
// older than the watch, tries the watch again there at each retry
// interval, saying once that the replica takes none; once the replica
// behind that address is newer (upgraded, or another one behind a load
// balancer), the watch is taken and a replacement stops the worker within
// moments, not at its next renewal or heartbeat (both 10 s away here).
func TestAWorkerOnAReplicaOlderThanTheWatchWatchesAgainOnceTheReplicaIsNewer(t *testing.T) {
	t.Parallel()
	in := newIngress(t, 30_000)
	in.beforeWatch = true
	dir := t.TempDir()
	in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; sleep 300`, dir)))
	w := runAgent(t, in, func(c *Config) { c.Concurrency, c.watchRetry = 1, 50*time.Millisecond })
	pid := readPid(t, filepath.Join(dir, "pid"))
	waitFor(t, "the worker to try its watch again on the older replica", func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.refusedWatches >= 3
	})
	in.mu.Lock()
	in.beforeWatch = false
	in.mu.Unlock()
	if n := strings.Count(w.logs.String(), `"code":"session_watch_unknown"`); n != 1 {
		t.Fatalf("the worker said %d times that the replica takes no watch, want once\n%s", n, w.logs)
	}
	waitFor(t, "the upgraded replica to take a watch", func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.takenWatches > 0
	})
	replaceBusyWorker(t, in, w, pid)
}

// replaceBusyWorker replaces w's session at the ingress and checks that the
// worker, its only slot busy with the command of pid, stops within moments
// — before its next renewal or heartbeat — as replaced, ending the command.
func replaceBusyWorker(t *testing.T, in *ingress, w running, pid int) {
	t.Helper()
	in.mu.Lock()
	in.state = workerproto.SessionReplaced
	in.mu.Unlock()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("the replaced worker, its only slot busy, did not stop before its next renewal or heartbeat\n%s", w.logs)
	}
	if _, err := w.stop(); !errors.Is(err, ErrReplaced) {
		t.Fatalf("the replaced worker stopped with %v; want ErrReplaced", err)
	}
	if !processGone(pid) {
		t.Fatal("the replaced worker left its command running")
	}
}
