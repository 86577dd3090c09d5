package execution

import (
	"context"
	"path/filepath"
	"syscall"
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
// ends the command it left behind, and its give-back of the grant it
// never started leaves that attempt to worker-b; every attempt id ran
// exactly once.
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
	// Found lost after its lease, it ends at the worker's last renewal:
	// no later than the lease, no earlier than its start.
	if lost := c.attempts(t, x)[0]; lost.FinishedAtMs == nil || lost.StartedAtMs == nil || *lost.FinishedAtMs > lastLease || *lost.FinishedAtMs < *lost.StartedAtMs {
		t.Fatalf("attempt %+v: want it ended at its worker's last renewal, between its start and its lease's end at %d", lost, lastLease)
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
	// the lease it names is over. Nor does its give-back of the grant it
	// never started, which worker-b runs now.
	wa.awaitLog(t, "attempt_abandoned_over", 1, 20*time.Second)
	wa.awaitLog(t, "grant_left_taken", 1, 20*time.Second)
	if ys := c.attempts(t, y); len(ys) != 1 || ys[0].ID != y1.ID || ys[0].State != "running" || ys[0].Worker != "worker-b" {
		t.Fatalf("the grant worker-a left, after its give-back: %+v; want it running on worker-b", ys)
	}
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
	workDir := filepath.Join(c.tmp, "qinglong-"+x1.ID+"-*")
	if dirs, err := filepath.Glob(workDir); err != nil || len(dirs) != 1 {
		t.Fatalf("the running attempt's working directories: %v (%v); want its one fresh directory", dirs, err)
	}
	wa.kill(t)
	leaseEnd := *c.attempts(t, x)[0].LeaseExpiresAtMs

	wa = c.startWorker(t, a, r.workerURL(), 2)
	wa.awaitLog(t, "attempt_abandoned_reported", 1, 20*time.Second)
	// The killed worker never removed its command's fresh working
	// directory; the restart does, once the command is ended.
	if dirs, err := filepath.Glob(workDir); err != nil || len(dirs) != 0 {
		t.Errorf("the working directory of the ended attempt after the restart: %v (%v); want it removed", dirs, err)
	}
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

// A worker SIGKILLed holding a grant whose start never reached the
// replica, and started again on the same data dir only after its session
// expired (so no registration replaces that session and gives its grants
// back), gives the grant back under that grant's own lease: the Run runs
// within moments of the restart, long before the grant's lease would have
// passed in database time, as the same attempt, never started twice.
func TestAGrantACrashedWorkerNeverStartedIsOfferedAgainWhenTheWorkerRestarts(t *testing.T) {
	t.Parallel()
	// A run lease longer than the session lease, so the grant outlives
	// the session of the worker that crashed holding it.
	c := newCluster(t, 2*time.Minute)
	c.apply(t, project("left", c.out(), map[string]string{"left": holdScript + `
timeout: 5m`}))
	h := c.holdFirstStart(t, "left")
	r, a, wa, x := h.r, h.a, h.wa, h.x
	// The held start never reaches the replica: the worker dies first.
	wa.kill(t)
	x1 := c.attempts(t, x)[0]
	if x1.State != "claimed" || x1.StartedAtMs != nil || x1.LeaseExpiresAtMs == nil {
		t.Fatalf("the grant the killed worker held: %+v; want claimed under a lease, never started", x1)
	}
	leaseEnd := *x1.LeaseExpiresAtMs
	if got := c.journalState(t, a, x1.ID); got != "granted" {
		t.Fatalf("worker-a's journal holds %s as %q at the crash, want granted", x1.ID, got)
	}
	// The worker stayed down past its session lease: the sweep expires
	// the session, and the restart's registration replaces nothing.
	c.env.Exec(t, `UPDATE qinglong.worker_sessions s SET lease_expires_at_ms = `+pgstore.ClockMsSQL+`
		FROM qinglong.workers w WHERE w.id = s.worker_id AND w.name = 'worker-a' AND s.state = 'active'`)
	eventually(t, 20*time.Second, "the sweep to expire worker-a's session", func() bool {
		return c.env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions s JOIN qinglong.workers w ON w.id = s.worker_id
			WHERE w.name = 'worker-a' AND s.state IN ('active', 'draining')`) == 0
	})

	restart := c.nowMs(t)
	wa = c.startWorker(t, a, r.workerURL(), 2)
	wa.awaitLog(t, "grant_left_given_back", 1, 20*time.Second)
	c.awaitRun(t, x, 20*time.Second, "running")
	xs := c.attempts(t, x)
	if len(xs) != 1 || xs[0].ID != x1.ID || xs[0].StartedAtMs == nil || *xs[0].StartedAtMs >= leaseEnd-c.lease.Milliseconds()/2 {
		t.Fatalf("attempts after the restart: %+v; want the one attempt started well before its grant's lease ended at %d", xs, leaseEnd)
	}
	t.Logf("the Run started %d ms after the restart; its grant's lease had %d ms left", *xs[0].StartedAtMs-restart, leaseEnd-restart)
	if n := c.events(t, x, "run.queued"); n != 2 {
		t.Fatalf("the Run was queued %d times, want twice: at admission and on the give-back", n)
	}
	c.release(t)
	c.awaitRun(t, x, 20*time.Second, "succeeded")
	if ids := readLines(t, filepath.Join(c.out(), "ids")); len(ids) != 1 || ids[0] != x1.ID {
		t.Fatalf("executions %v, want %s once", ids, x1.ID)
	}
}

// A worker frozen just after sending the start of a grant, its start then
// acknowledged by the replica, and SIGKILLed before it read that reply,
// leaves the grant journaled as granted: its command was never spawned.
// Started again, the worker gives the grant back, is answered started
// (the replica keeps a started attempt's lease), and reports the attempt
// lost under that lease: it ends within moments of the restart, long
// before its lease would have passed in database time, the task's retry on
// lost runs it again, and the first attempt's command never ran.
func TestAGrantWhoseStartWasAcknowledgedButNeverSpawnedEndsLostWhenTheWorkerRestarts(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 30*time.Second)
	c.apply(t, project("acked", c.out(), map[string]string{"acked": holdScript + `
timeout: 5m
retry: {maxAttempts: 2, on: [lost]}`}))
	h := c.holdFirstStart(t, "acked")
	r, a, wa, x, proxy, held := h.r, h.a, h.wa, h.x, h.proxy, h.held
	// Frozen, the worker keeps its connection open but reads nothing: the
	// replica acknowledges the start and the reply waits unread.
	if err := syscall.Kill(wa.pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	held.Release()
	eventually(t, 20*time.Second, "the replica to answer the start", func() bool {
		return proxy.Forwarded(workerproto.PathStart) == 1 && proxy.InFlight(workerproto.PathStart) == 0
	})
	wa.kill(t)
	x1 := c.attempts(t, x)[0]
	if x1.State != "running" || x1.StartedAtMs == nil || x1.LeaseExpiresAtMs == nil {
		t.Fatalf("the attempt the killed worker held: %+v; want running, its start acknowledged", x1)
	}
	leaseEnd := *x1.LeaseExpiresAtMs
	if got := c.journalState(t, a, x1.ID); got != "granted" {
		t.Fatalf("worker-a's journal holds %s as %q at the crash, want granted (never launched)", x1.ID, got)
	}

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
	if n := wa.logCount("grant_left_given_back"); n != 1 {
		t.Fatalf("the restarted worker-a gave back %d grants, want 1 (answered started)", n)
	}
	eventually(t, 20*time.Second, "the retry to run", func() bool {
		xs := c.attempts(t, x)
		return len(xs) == 2 && xs[1].State == "running"
	})
	c.release(t)
	c.awaitRun(t, x, 20*time.Second, "succeeded")
	if ids := readLines(t, filepath.Join(c.out(), "ids")); len(ids) != 1 || ids[0] == x1.ID {
		t.Fatalf("executions %v, want only the retry's: the first attempt was never spawned", ids)
	}
}

// heldStart is a cluster's first Run of a trigger whose start the worker
// sent and a proxy before the replica's worker ingress holds: the worker
// pulled the grant, and the replica has not heard it start.
type heldStart struct {
	r     *replica
	proxy *faults.HTTPProxy
	held  *faults.RequestHold
	a     *workerDef
	wa    *proc
	x     string
}

// holdFirstStart holds the cluster's commands (c.hold), starts a replica
// behind a proxy and worker-a (8 slots, 2 at once) through it, fires
// trigger and returns once the proxy holds the worker's start of its
// grant.
func (c *cluster) holdFirstStart(t *testing.T, trigger string) heldStart {
	t.Helper()
	c.hold(t)
	h := heldStart{r: c.startReplica(t, "replica", "", "")}
	h.proxy = startHTTPProxy(t, h.r.workerURL())
	h.a = c.newWorker(t, "worker-a", 8)
	h.wa = c.startWorker(t, h.a, h.proxy.URL(), 2)
	h.held = h.proxy.ArmHold(workerproto.PathStart)
	h.x = c.fire(t, trigger)
	select {
	case <-h.held.Held():
	case <-time.After(20 * time.Second):
		t.Fatal("the worker never sent the start of its grant")
	}
	return h
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
