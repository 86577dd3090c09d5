package execution

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/faults"
)

// A worker SIGKILLed while one command runs and another grant waits for
// its start ACK: the started attempt becomes lost only once its lease
// passed in database time, and is retried on another worker (retry: lost,
// 2 attempts); the unstarted grant is offered again and runs elsewhere as
// the same attempt. The killed worker, restarted on the same data dir,
// spawns nothing its journal held as running: it abandons the record and
// ends the command it left behind; every attempt id ran exactly once.
func TestASIGKILLedWorkersStartedAttemptsAreLostAfterTheirLeaseAndRetriedElsewhere(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("crash", c.out(), map[string]string{"crash": holdScript + `
timeout: 5m
retry: {maxAttempts: 2, on: [lost]}`}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	proxy := startHTTPProxy(t, r.workerURL())
	a := c.newWorker(t, "worker-a", 8)
	wa := c.startWorker(t, a, proxy.URL(), 2)

	x := c.fire(t, "crash")
	c.awaitRun(t, x, 20*time.Second, "running")
	x1 := c.attempts(t, x)[0]
	pidX := c.awaitPid(t, x1.ID)
	held := proxy.ArmHold(workerproto.PathStart)
	y := c.fire(t, "crash")
	select {
	case <-held.Held():
	case <-time.After(20 * time.Second):
		t.Fatal("the worker never sent the start of its second grant")
	}
	y1 := c.attempts(t, y)[0]
	// The held start never reaches the replica: the worker dies first.
	wa.kill(t)
	if processGone(pidX) {
		t.Fatal("the killed worker's command died with it; the crash must leave it running")
	}

	// Lost after the lease, not before, in database time.
	var lastLease int64
	eventually(t, 20*time.Second, "the started attempt to be lost", func() bool {
		var state string
		var now int64
		var lease *int64
		if err := c.env.Super.QueryRow(context.Background(), `SELECT state, lease_expires_at_ms, `+pgstore.ClockMsSQL+` FROM qinglong.attempts WHERE id = $1`, x1.ID).
			Scan(&state, &lease, &now); err != nil {
			t.Fatal(err)
		}
		if lease != nil {
			lastLease = *lease
		}
		if state == "lost" && now < lastLease {
			t.Fatalf("attempt %s lost at %d, before its lease ended at %d", x1.ID, now, lastLease)
		}
		return state == "lost"
	})
	if lost := c.attempts(t, x)[0]; lost.FinishedAtMs == nil || *lost.FinishedAtMs < lastLease {
		t.Fatalf("attempt %+v finished before its lease ended at %d", lost, lastLease)
	}
	// The unstarted grant is released: its Run is offered again.
	c.awaitRun(t, y, 20*time.Second, "queued")
	if ys := c.attempts(t, y); len(ys) != 1 || ys[0].ID != y1.ID || ys[0].StartedAtMs != nil || ys[0].State != "claimed" {
		t.Fatalf("the unstarted grant after the sweep: %+v; want its one attempt claimed again, never started", ys)
	}

	b := c.newWorker(t, "worker-b", 8)
	c.startWorker(t, b, r.workerURL(), 4)
	eventually(t, 20*time.Second, "the retry and the re-offered grant to run on worker-b", func() bool {
		xs, ys := c.attempts(t, x), c.attempts(t, y)
		return len(xs) == 2 && xs[1].State == "running" && xs[1].Worker == "worker-b" && len(ys) == 1 && ys[0].State == "running" && ys[0].Worker == "worker-b"
	})
	x2 := c.attempts(t, x)[1]

	// Restarted on its data dir, worker-a abandons what it ran and ends the
	// command it left behind, never spawning it again.
	if processGone(pidX) {
		t.Fatal("the command worker-a left behind ended before its restart")
	}
	wa = c.startWorker(t, a, r.workerURL(), 2)
	if n := wa.logCount("attempt_abandoned"); n != 1 {
		t.Fatalf("the restarted worker-a abandoned %d attempts, want 1", n)
	}
	// Its report of the attempt the sweep already ended changes nothing:
	// the lease it names is over.
	wa.awaitLog(t, "attempt_abandoned_over", 1, 20*time.Second)
	if xs := c.attempts(t, x); len(xs) != 2 || xs[0].State != "lost" || xs[1].State != "running" || xs[1].Worker != "worker-b" {
		t.Fatalf("attempts after worker-a's report of a lease already over: %+v; want the first lost, the retry running on worker-b", xs)
	}
	if got := c.journalState(t, a, x1.ID); got != "abandoned" {
		t.Fatalf("worker-a's journal holds %s as %q after the restart, want abandoned", x1.ID, got)
	}
	eventually(t, 10*time.Second, "the left-behind command to be ended", func() bool { return processGone(pidX) })

	c.release(t)
	c.awaitRun(t, x, 20*time.Second, "succeeded")
	c.awaitRun(t, y, 20*time.Second, "succeeded")
	ids := readLines(t, filepath.Join(c.out(), "ids"))
	want := map[string]bool{x1.ID: true, x2.ID: true, y1.ID: true}
	if len(ids) != len(want) {
		t.Fatalf("executions %v, want each of %v once", ids, want)
	}
	for _, id := range ids {
		if !want[id] {
			t.Fatalf("executions %v, want each of %v once", ids, want)
		}
		delete(want, id)
	}
}

// A worker SIGKILLed while its command runs, started again on the same
// data dir, reports the attempt it left through that attempt's own lease:
// the attempt ends lost at once, long before its lease would have passed
// in database time, and the task's retry on lost runs it again.
func TestAnAttemptLeftByACrashedWorkerEndsWhenTheWorkerRestartsNotWhenItsLeasePasses(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 30*time.Second)
	c.apply(t, project("restart", c.out(), map[string]string{"restart": holdScript + `
timeout: 5m
retry: {maxAttempts: 2, on: [lost]}`}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	a := c.newWorker(t, "worker-a", 8)
	wa := c.startWorker(t, a, r.workerURL(), 2)

	x := c.fire(t, "restart")
	c.awaitRun(t, x, 20*time.Second, "running")
	x1 := c.attempts(t, x)[0]
	pid := c.awaitPid(t, x1.ID)
	wa.kill(t)
	leaseEnd := *c.attempts(t, x)[0].LeaseExpiresAtMs

	wa = c.startWorker(t, a, r.workerURL(), 2)
	wa.awaitLog(t, "attempt_abandoned_reported", 1, 20*time.Second)
	var state, code string
	var finished int64
	if err := c.env.Super.QueryRow(context.Background(), `SELECT state, coalesce(error_code, ''), coalesce(finished_at_ms, 0) FROM qinglong.attempts WHERE id = $1`, x1.ID).
		Scan(&state, &code, &finished); err != nil {
		t.Fatal(err)
	}
	if state != "lost" || code != workerproto.StopWorkerShutdown || finished == 0 || finished >= leaseEnd {
		t.Fatalf("the reported attempt is %s (error code %q) at %d; want lost (%s) before its lease's end at %d", state, code, finished, workerproto.StopWorkerShutdown, leaseEnd)
	}
	if !processGone(pid) {
		t.Fatal("the command the killed worker left runs on after the restart")
	}
	eventually(t, 20*time.Second, "the retry to run", func() bool {
		xs := c.attempts(t, x)
		return len(xs) == 2 && xs[1].State == "running" && xs[1].Worker == "worker-a"
	})
	c.release(t)
	c.awaitRun(t, x, 20*time.Second, "succeeded")
}

// holdScript is a task body: the command appends its attempt id to
// $OUT/ids, writes its pid (its process group) to $OUT/<attempt>.pid, and
// runs while $OUT/hold exists.
const holdScript = `script: |
  echo "$QL_ATTEMPT_ID" >> "$OUT/ids"
  echo $$ > "$OUT/$QL_ATTEMPT_ID.pid"
  while [ -e "$OUT/hold" ]; do sleep 0.1; done`

func startHTTPProxy(t testing.TB, upstream string) *faults.HTTPProxy {
	t.Helper()
	p, err := faults.StartHTTPProxy(upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// PostgreSQL stopped for longer than the run lease (and the sweep's
// bound) while a command runs: the replica refuses the worker's renewals,
// the worker kills its command at its lease clock, and once the database
// is back the attempt is recorded lost to the replicas' outage, not as a
// worker that stopped renewing.
func TestALeaseThatRanOutWhileTheDatabaseWasDownIsNotBlamedOnTheWorker(t *testing.T) {
	t.Parallel()
	c, srv := newClusterOn(t, 3*time.Second)
	c.apply(t, project("outage", c.out(), map[string]string{"outage": holdScript + `
timeout: 5m`}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	wa := c.startWorker(t, c.newWorker(t, "worker-a", 8), r.workerURL(), 2)
	x := c.fire(t, "outage")
	c.awaitRun(t, x, 20*time.Second, "running")
	x1 := c.attempts(t, x)[0]
	c.awaitPid(t, x1.ID)

	postmaster := srv.PID()
	if err := srv.Restart(t.Context(), pgstore.SweptLateAfter+5*time.Second); err != nil {
		t.Fatal(err)
	}
	if srv.PID() == postmaster {
		t.Fatalf("the postmaster (pid %d) did not change: no outage happened", postmaster)
	}
	// The superuser pool's connections died with the server.
	c.env.Super.Reset()
	if wa.logCount("attempt_lease_lost") != 1 {
		t.Fatalf("the worker did not lose its lease during the outage:\n%s", tail(wa.logPath, 20))
	}
	eventually(t, 30*time.Second, "the attempt to be lost", func() bool { return c.attempts(t, x)[0].State == "lost" })
	var code string
	if err := c.env.Super.QueryRow(context.Background(), `SELECT coalesce(error_code, '') FROM qinglong.attempts WHERE id = $1`, x1.ID).Scan(&code); err != nil {
		t.Fatal(err)
	}
	if code != pgstore.ErrorCodeLeaseExpiredUnswept {
		t.Fatalf("the attempt whose lease ran out during the outage is lost with %q; want %s", code, pgstore.ErrorCodeLeaseExpiredUnswept)
	}
}
