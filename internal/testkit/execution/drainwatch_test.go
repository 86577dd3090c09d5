package execution

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// drainedHeardWithin bounds how long a drained worker whose only slot is
// busy may take to hear a revocation or a cancel, told by the watch it
// keeps while it drains: moments, with room for a loaded machine, and far
// inside the third of the 30 s run lease after which its next renewal
// would tell it (the change is made just after a renewal, and its
// heartbeats are held unanswered).
const drainedHeardWithin = 2 * time.Second

// drainedBusyWorker is a worker drained with `ql workers drain` while its
// only slot runs a held command, at the default 30 s run lease, reaching
// its replica through a holder of session news that holds every heartbeat,
// so only its watch or its next renewal can tell it of a change. Another
// Run of the project was queued after the drain, which it must never take.
type drainedBusyWorker struct {
	c       *cluster
	proxy   *sessionNewsHolder
	p       *proc
	run     string
	queued  string
	pid     int
	renewal time.Duration
}

// startDrainedBusyWorker starts a drainedBusyWorker in a project named
// name and returns just after a renewal of its attempt made after the
// drain: a change made now would wait for the next renewal, a whole third
// of the lease, if nothing else told the worker.
func startDrainedBusyWorker(t *testing.T, name string) drainedBusyWorker {
	t.Helper()
	b := drainedBusyWorker{c: newCluster(t, 30*time.Second)}
	c := b.c
	b.renewal = c.lease / 3
	c.apply(t, project(name, c.out(), map[string]string{"sleep": holdScript + "\ntimeout: 5m", "quick": "command: [\"/bin/true\"]"}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	b.proxy = newSessionNewsHolder(t, r.workerURL())
	w := c.newWorker(t, "worker", 4)
	b.p = c.startWorker(t, w, b.proxy.url, 1)
	b.run = c.fire(t, "sleep")
	c.awaitRun(t, b.run, 20*time.Second, "running")
	b.pid = c.awaitPid(t, c.attempts(t, b.run)[0].ID)
	b.proxy.heartbeatsHeld.Store(true)

	if code, out := c.runQL(t, []string{"QL_DATABASE_ADMIN_URL=" + c.env.URL(pgstore.RoleAdmin)}, "workers", "drain", "worker"); code != 0 {
		t.Fatalf("ql workers drain: exit %d: %s", code, out)
	}
	b.p.awaitLog(t, "worker_draining", 1, time.Minute)
	pulled := b.proxy.pulls.Load()
	b.queued = c.fire(t, "quick")
	renewed := *c.attempts(t, b.run)[0].LeaseVersion
	eventually(t, b.renewal+5*time.Second, "a renewal of the attempt after the drain", func() bool {
		return *c.attempts(t, b.run)[0].LeaseVersion > renewed
	})
	t.Cleanup(func() {
		if n := b.proxy.pulls.Load() - pulled; n != 0 {
			t.Errorf("the drained worker sent %d pulls for work after its drain, want none", n)
		}
		state := c.runState(t, b.queued)
		for _, a := range c.attempts(t, b.queued) {
			if a.Worker != "" {
				t.Errorf("the Run queued after the drain has an attempt (%s) granted to worker %q, want none granted to the drained worker", a.State, a.Worker)
			}
		}
		if state != "queued" {
			t.Errorf("the Run queued after the drain is %s, want still queued: the drained worker must never take it", state)
		}
	})
	return b
}

// A worker drained while its only slot runs a command keeps a watch
// waiting as long as that command runs: revoked then, it hears it within
// moments — its command killed, exit status 5 — not when its next renewal
// is refused, a third of the run lease later; and it never pulls, so the
// Run queued after its drain is never granted to it.
func TestADrainedWorkerWithABusySlotHearsARevocationAtOnceNotAtItsNextRenewal(t *testing.T) {
	t.Parallel()
	b := startDrainedBusyWorker(t, "drainrevoked")
	c, p := b.c, b.p
	if code, out := c.runQL(t, []string{"QL_DATABASE_ADMIN_URL=" + c.env.URL(pgstore.RoleAdmin)}, "workers", "revoke", "worker"); code != 0 {
		t.Fatalf("ql workers revoke: exit %d: %s", code, out)
	}
	p.wait(t)
	if p.state.ExitCode() != 5 || p.logCount("credential_refused") != 1 {
		t.Fatalf("the revoked worker exited with %v, want status 5 after one credential_refused", p.state)
	}
	if !processGone(b.pid) {
		t.Fatal("the revoked worker left its command running")
	}
	revokedMs := c.env.Int(t, `SELECT revoked_at_ms FROM qinglong.workers WHERE name = 'worker'`)
	heard := p.loggedAt(t, "credential_refused").Sub(time.UnixMilli(revokedMs))
	t.Logf("the drained worker, its only slot busy, heard of its revocation %s after it (its renewal comes every %s)", heard, b.renewal)
	if heard >= drainedHeardWithin {
		t.Fatalf("the drained worker heard of its revocation %s after it, want within %s: its next renewal would tell it within %s", heard, drainedHeardWithin, b.renewal)
	}
}

// A worker drained while its only slot runs a command: a cancel of that
// Run stops the command within moments, told by the watch the drained
// worker keeps, not at the attempt's next renewal, a third of the run
// lease later; the Run ends cancelled, and the worker, idle, exits 0,
// never having pulled the Run queued after its drain.
func TestADrainedWorkerWithABusySlotStopsACancelledCommandAtOnceNotAtItsNextRenewal(t *testing.T) {
	t.Parallel()
	b := startDrainedBusyWorker(t, "draincancel")
	c, p := b.c, b.p
	cancelAt := time.Now()
	c.runsCancel(t, b.run)
	var endedAt time.Time
	eventually(t, c.lease, "the cancelled command to end", func() bool {
		if processGone(b.pid) {
			endedAt = time.Now()
			return true
		}
		return false
	})
	took := endedAt.Sub(cancelAt)
	t.Logf("the drained worker's command ended %s after `ql runs cancel` started (its renewal comes every %s)", took, b.renewal)
	c.awaitRun(t, b.run, 10*time.Second, "cancelled")
	p.wait(t)
	if p.state.ExitCode() != 0 {
		t.Fatalf("the drained worker exited with %v once its command ended, want status 0", p.state)
	}
	if took >= drainedHeardWithin {
		t.Fatalf("the drained worker's command ended %s after the cancel, want within %s: its next renewal would tell it within %s", took, drainedHeardWithin, b.renewal)
	}
}
