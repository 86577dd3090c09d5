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

// drainedBusy starts a worker whose only slot runs a long command, at a
// 30 s run lease (a renewal every 10 s, as the first heartbeat), drains
// its session, queues another Run it must never take, and returns once a
// draining watch waits.
func drainedBusy(t *testing.T, in *ingress) (w running, busy workerproto.Grant, later workerproto.Grant, pid int) {
	t.Helper()
	dir := t.TempDir()
	busy = in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; exec sleep 300`, dir)))
	w = runAgent(t, in, func(c *Config) { c.Concurrency = 1 })
	pid = readPid(t, filepath.Join(dir, "pid"))
	in.mu.Lock()
	in.state = workerproto.SessionDraining
	in.mu.Unlock()
	waitFor(t, "the worker to say it drains", func() bool { return strings.Contains(w.logs.String(), `"code":"worker_draining"`) })
	later = in.enqueue(t, shell(`echo must not run`))
	waitFor(t, "a draining watch", func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.drainWatches > 0
	})
	return w, busy, later, pid
}

// A worker drained while its only slot is busy keeps a draining watch
// waiting, so it hears a revocation within moments — its command killed,
// ErrUnauthenticated — and a cancel of its command likewise, not at the
// attempt's next renewal or the next heartbeat, both 10 s away; and it
// never starts the Run queued after its drain.
func TestADrainedWorkerWithABusySlotHearsARevocationAndACancelFromItsWatch(t *testing.T) {
	t.Parallel()
	const within = 2 * time.Second
	t.Run("revocation", func(t *testing.T) {
		t.Parallel()
		in := newIngress(t, 30_000)
		w, _, later, pid := drainedBusy(t, in)
		in.mu.Lock()
		in.revoked = true
		in.mu.Unlock()
		select {
		case <-w.exited:
		case <-time.After(within):
			t.Fatalf("the drained worker did not hear of its revocation within %s\n%s", within, w.logs)
		}
		if _, err := w.stop(); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("stopped with %v; want ErrUnauthenticated", err)
		}
		waitFor(t, "the command to be killed", func() bool { return processGone(pid) })
		if a := in.attempt(later.AttemptID); a.starts != 0 {
			t.Fatal("the drained worker started a Run queued after its drain")
		}
	})
	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		in := newIngress(t, 30_000)
		w, busy, later, pid := drainedBusy(t, in)
		in.setStop(busy.AttemptID, workerproto.StopCancelled)
		select {
		case <-w.exited:
		case <-time.After(within):
			t.Fatalf("the drained worker did not end its cancelled command and exit within %s\n%s", within, w.logs)
		}
		if _, err := w.stop(); err != nil {
			t.Fatalf("the drained worker stopped with %v once idle, want nil", err)
		}
		if !processGone(pid) {
			t.Fatal("the cancelled command still runs")
		}
		a := in.attempt(busy.AttemptID)
		if a.complete == nil || a.complete.Outcome != workerproto.OutcomeStopped {
			t.Fatalf("the cancelled attempt completed %+v, want stopped", a.complete)
		}
		if a := in.attempt(later.AttemptID); a.starts != 0 {
			t.Fatal("the drained worker started a Run queued after its drain")
		}
	})
}

// Against a replica older than the draining watch, a drained worker with a
// busy slot never spins: a replica that refuses the field is said once and
// not asked again before the retry interval; one that answers the watch at
// once (it takes it for a plain watch, which answers draining) is asked
// again after a pause that doubles. Either way the worker still hears a
// revocation, at the attempt's next renewal (every second here).
func TestADrainedWorkerDoesNotSpinOnAReplicaOlderThanTheDrainingWatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		older    func(*ingress)
		maxAsked int
	}{
		{"refused", func(in *ingress) { in.beforeDrainWatch = true }, 1},
		// At once, then after 1 s, 2 s: three in the 2.5 s watched.
		{"answered at once", func(in *ingress) { in.drainWatchAtOnce = true }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := newIngress(t, 3_000)
			tc.older(in)
			dir := t.TempDir()
			in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; exec sleep 300`, dir)))
			w := runAgent(t, in, func(c *Config) { c.Concurrency = 1 })
			pid := readPid(t, filepath.Join(dir, "pid"))
			in.mu.Lock()
			in.state = workerproto.SessionDraining
			in.mu.Unlock()
			waitFor(t, "the worker to say it drains", func() bool { return strings.Contains(w.logs.String(), `"code":"worker_draining"`) })
			time.Sleep(2500 * time.Millisecond)
			in.mu.Lock()
			asked := in.drainWatches + in.refusedWatches
			in.revoked = true
			in.mu.Unlock()
			if asked == 0 || asked > tc.maxAsked {
				t.Fatalf("the drained worker sent %d draining watches in 2.5 s, want 1–%d", asked, tc.maxAsked)
			}
			if n := strings.Count(w.logs.String(), `"code":"drain_watch_unknown"`); (n == 1) != (tc.name == "refused") {
				t.Fatalf("drain_watch_unknown said %d times\n%s", n, w.logs)
			}
			select {
			case <-w.exited:
			case <-time.After(5 * time.Second):
				t.Fatalf("the drained worker did not hear of its revocation at its next renewal\n%s", w.logs)
			}
			if _, err := w.stop(); !errors.Is(err, ErrUnauthenticated) {
				t.Fatalf("stopped with %v; want ErrUnauthenticated", err)
			}
			waitFor(t, "the command to be killed", func() bool { return processGone(pid) })
		})
	}
}
