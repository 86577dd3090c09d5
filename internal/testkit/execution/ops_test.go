package execution

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A replica SIGKILLed while the worker's long-poll pull waits on it: the
// pull fails on the network, the worker (given both replicas) sends its
// requests to the other one, and the Run admitted after the kill is
// granted once and run once.
func TestAWorkerFailsOverToAnotherReplicaWhenItsReplicaIsKilledMidPull(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("failover", c.out(), map[string]string{"echo": echoTask}))
	r1 := c.startReplica(t, "replica-1", "", "")
	r2 := c.startReplica(t, "replica-2", "", "")
	proxy := startHTTPProxy(t, r1.workerURL())
	w := c.newWorker(t, "worker", 4)
	wp := c.startWorker(t, w, proxy.URL()+","+r2.workerURL(), 2)
	eventually(t, 10*time.Second, "a pull waiting on replica-1", func() bool { return proxy.InFlight(workerproto.PathPull) == 1 })
	r1.kill(t)
	eventually(t, 10*time.Second, "the waiting pull to fail", func() bool { return proxy.InFlight(workerproto.PathPull) == 0 })

	run := c.fire(t, "echo")
	c.awaitRun(t, run, 20*time.Second, "succeeded")
	as := c.attempts(t, run)
	if len(as) != 1 || c.events(t, run, "run.dispatching") != 1 {
		t.Fatalf("attempts %+v, %d dispatching events; want one grant", as, c.events(t, run, "run.dispatching"))
	}
	if ids := readLines(t, filepath.Join(c.out(), "ids")); len(ids) != 1 || ids[0] != as[0].ID {
		t.Fatalf("executions %v, want %s once", ids, as[0].ID)
	}
	if wp.exited() {
		t.Fatalf("the worker exited (%v) when a replica died", wp.state)
	}
}

// SIGTERM on a worker running two commands: it pulls nothing more, the
// command that ends by itself within --stop-timeout completes as it ended,
// the one that does not is stopped at the stop timeout and completed by
// the worker as stopped, which ends it lost (as a dead worker's attempt,
// so a retry policy on lost runs it again), and the worker exits 0.
// Neither attempt is left to the lease sweep.
func TestSIGTERMOnAWorkerLetsItsCommandsFinishAndStopsTheRestAtTheStopTimeout(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("drain", c.out(), map[string]string{
		"finishes": holdScript + "\ntimeout: 5m",
		"forever": `script: |
  echo "$QL_ATTEMPT_ID" >> "$OUT/ids"
  while :; do sleep 0.1; done
timeout: 5m`}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	w := c.newWorker(t, "worker", 4)
	wp := c.startWorker(t, w, r.workerURL(), 2)
	finishes, forever := c.fire(t, "finishes"), c.fire(t, "forever")
	c.awaitRun(t, finishes, 20*time.Second, "running")
	c.awaitRun(t, forever, 20*time.Second, "running")

	termAt := time.Now()
	if err := wp.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wp.awaitLog(t, "worker_draining", 1, 5*time.Second)
	c.release(t)
	c.awaitRun(t, finishes, 10*time.Second, "succeeded")
	wp.wait(t)
	if !wp.state.Success() {
		t.Fatalf("the worker exited with %v after SIGTERM, want status 0", wp.state)
	}
	if took := time.Since(termAt); took < 5*time.Second {
		t.Fatalf("the worker exited %v after SIGTERM, before its 5s stop timeout, with a command still running", took)
	}
	a := c.attempts(t, forever)[0]
	if a.ResultCode != workerproto.OutcomeStopped || a.FinishedAtMs == nil || a.State != "lost" {
		t.Fatalf("the command running past the stop timeout ended as %+v; want it completed by the worker as stopped, and lost", a)
	}
	if s := c.runState(t, forever); s != "lost" {
		t.Fatalf("the stopped Run (no retry policy) is %s, want lost", s)
	}
}

// ql runs cancel on a queued Run (no worker can take it) cancels it at
// once; on a running Run, the worker hears stop on its next renewal, the
// command gets SIGTERM (its trap records it) and the Run ends cancelled.
func TestCancelEndsAQueuedRunAtOnceAndARunningRunThroughSIGTERM(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("cancel", c.out(), map[string]string{
		"nowhere": "script: \"true\"\nplacement: {labels: {zone: nowhere}}",
		"traps": `script: |
  trap 'echo term > "$OUT/$QL_ATTEMPT_ID.term"; exit 143' TERM
  echo $$ > "$OUT/$QL_ATTEMPT_ID.pid"
  while :; do sleep 0.1; done
timeout: 5m`}))
	r := c.startReplica(t, "replica", "", "")
	w := c.newWorker(t, "worker", 4)
	c.startWorker(t, w, r.workerURL(), 2)

	queued := c.fire(t, "nowhere")
	if s := c.runState(t, queued); s != "queued" {
		t.Fatalf("the unplaceable Run is %s, want queued", s)
	}
	c.runsCancel(t, queued)
	if s := c.runState(t, queued); s != "cancelled" {
		t.Fatalf("right after ql runs cancel the queued Run is %s, want cancelled", s)
	}

	running := c.fire(t, "traps")
	c.awaitRun(t, running, 20*time.Second, "running")
	a := c.attempts(t, running)[0]
	pid := c.awaitPid(t, a.ID)
	c.runsCancel(t, running)
	c.awaitRun(t, running, 10*time.Second, "cancelled")
	if _, err := os.Stat(filepath.Join(c.out(), a.ID+".term")); err != nil {
		t.Fatalf("the cancelled command never got SIGTERM: %v", err)
	}
	eventually(t, 5*time.Second, "the cancelled command to be gone", func() bool { return processGone(pid) })
}

// A Run cancelled with `ql runs cancel` while its command runs on a
// worker, at the default 30 s run lease: the cancel wakes the worker's
// waiting watch (its only slot busy) or pull (a slot free), which names
// the attempt; the worker renews it at once, hears stop, and ends the
// command (SIGTERM) within moments — not at its next renewal, a third of
// the lease (10 s) later, which is when it used to hear it. The cancel is
// sent just after a renewal, so without the wake the command would run on
// for almost all of that third. The Run ends cancelled and its log's last
// line says why the command was stopped.
func TestACancelStopsTheCommandOnItsWorkerWithinMomentsNotAtItsNextRenewal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		concurrency int
	}{{"its only slot busy, told by its watch", 1}, {"a slot free, told by its pull", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, 30*time.Second)
			c.apply(t, project("cancelnow", c.out(), map[string]string{"loops": `script: |
  echo "$QL_ATTEMPT_ID" >> "$OUT/ids"
  echo $$ > "$OUT/$QL_ATTEMPT_ID.pid"
  while :; do sleep 0.1; done
timeout: 5m`}))
			r := c.startReplica(t, "replica", "", "")
			w := c.newWorker(t, "worker", 4)
			c.startWorker(t, w, r.workerURL(), tc.concurrency)
			run := c.fire(t, "loops")
			c.awaitRun(t, run, 20*time.Second, "running")
			a := c.attempts(t, run)[0]
			pid := c.awaitPid(t, a.ID)
			renewal := c.lease / 3
			renewed := *a.LeaseVersion
			eventually(t, renewal+5*time.Second, "a renewal of the attempt", func() bool { return *c.attempts(t, run)[0].LeaseVersion > renewed })

			cancelAt := time.Now()
			c.runsCancel(t, run)
			var endedAt time.Time
			eventually(t, c.lease, "the cancelled command to end", func() bool {
				if processGone(pid) {
					endedAt = time.Now()
					return true
				}
				return false
			})
			took := endedAt.Sub(cancelAt)
			c.awaitRun(t, run, 10*time.Second, "cancelled")
			askedMs := c.env.Int(t, `SELECT cancel_requested_at_ms FROM qinglong.runs WHERE id = $1`, run)
			completedMs := c.env.Int(t, `SELECT finished_at_ms FROM qinglong.attempts WHERE id = $1`, a.ID)
			t.Logf("the command ended %s after `ql runs cancel` started; the attempt completed %d ms after the cancel was recorded (database time)",
				took, completedMs-askedMs)
			lines := strings.Split(strings.TrimRight(c.attemptLog(t, a.ID), "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, "the command was stopped: the run was asked to cancel") {
				t.Fatalf("the cancelled attempt's log ends with %q, want the line saying the run was asked to cancel", last)
			}
			if took >= renewal/2 {
				t.Fatalf("the command ended %s after the cancel, want within moments: a renewal, which used to bring the stop, comes every %s", took, renewal)
			}
		})
	}
}

// attemptLog is an attempt's stored log.
func (c *cluster) attemptLog(t testing.TB, attemptID string) string {
	t.Helper()
	var log string
	if err := c.env.Super.QueryRow(context.Background(), `SELECT coalesce(convert_from(string_agg(bytes, ''::bytea ORDER BY log_offset), 'UTF8'), '')
		FROM qinglong.run_log_chunks WHERE attempt_id = $1`, attemptID).Scan(&log); err != nil {
		t.Fatal(err)
	}
	return log
}

// A command that ignores SIGTERM (its trap only records it) outlives its
// timeout by the kill grace, is then SIGKILLed with its group, and its Run
// ends timed_out.
//
// The trap stamps the SIGTERM with bash's own clock ($EPOCHREALTIME, no
// fork) and runs as soon as the signal arrives: the loop waits for its
// sleep with the wait builtin, which a trapped signal interrupts, where a
// sleep in the foreground holds the trap until it ends. The stamp lags the
// worker's SIGTERM by one wake-up of the shell only, which the 0.1 s under
// the grace allows for; a `date` forked by the trap lagged it by a fork
// and an exec, several tenths of a second on a loaded machine. The command
// is seen gone after the worker's SIGKILL, never before, and the worker
// sends that no sooner than the grace after its SIGTERM: a kill without
// the grace ends the command within a few polls of its stamp.
func TestACommandIgnoringSIGTERMIsKilledAfterItsGraceAndItsRunTimesOut(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	c.apply(t, project("timeout", c.out(), map[string]string{"stubborn": `shell: /bin/bash
script: |
  trap 'echo "$EPOCHREALTIME" >> "$OUT/$QL_ATTEMPT_ID.term"' TERM
  echo $$ > "$OUT/$QL_ATTEMPT_ID.pid"
  while :; do sleep 0.1 & wait $!; done
timeout: 2s
killGrace: 1s`}))
	r := c.startReplica(t, "replica", "", "")
	w := c.newWorker(t, "worker", 4)
	c.startWorker(t, w, r.workerURL(), 2)
	run := c.fire(t, "stubborn")
	c.awaitRun(t, run, 20*time.Second, "running")
	a := c.attempts(t, run)[0]
	pid := c.awaitPid(t, a.ID)
	termFile := filepath.Join(c.out(), a.ID+".term")
	var goneAt time.Time
	eventually(t, 15*time.Second, "the command to be killed", func() bool {
		if processGone(pid) {
			goneAt = time.Now()
			return true
		}
		return false
	})
	terms := readLines(t, termFile)
	if len(terms) == 0 {
		t.Fatal("the command died without ever getting SIGTERM")
	}
	termAt, err := epochRealtime(terms[0])
	if err != nil {
		t.Fatal(err)
	}
	lived := goneAt.Sub(termAt)
	t.Logf("the command was seen gone %v after its trap stamped the first SIGTERM", lived)
	if lived < 900*time.Millisecond {
		t.Fatalf("the command died %v after its first SIGTERM, before its 1s kill grace", lived)
	}
	c.awaitRun(t, run, 10*time.Second, "timed_out")
}

// epochRealtime reads bash's $EPOCHREALTIME (seconds, a point,
// microseconds).
func epochRealtime(s string) (time.Time, error) {
	sec, usec, ok := strings.Cut(s, ".")
	secs, err1 := strconv.ParseInt(sec, 10, 64)
	usecs, err2 := strconv.ParseInt(usec, 10, 64)
	if !ok || len(usec) != 6 || err1 != nil || err2 != nil {
		return time.Time{}, fmt.Errorf("the trap stamped %q, not bash's $EPOCHREALTIME", s)
	}
	return time.Unix(secs, usecs*1000), nil
}

// Wrong credentials are 401; a credential revoked with ql workers revoke
// is 401 within 5 s, and its worker process exits 5; another worker's
// session is 403.
func TestWrongRevokedAndAnotherWorkersCredentialsAreRefused(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3*time.Second)
	r := c.startReplica(t, "replica", "", "")
	one, two := c.newWorker(t, "worker-one", 4), c.newWorker(t, "worker-two", 4)
	wp := c.startWorker(t, one, r.workerURL(), 1)
	var session string
	if err := c.env.Super.QueryRow(context.Background(), `SELECT s.id::text FROM qinglong.worker_sessions s JOIN qinglong.workers w ON w.id = s.worker_id
		WHERE w.name = 'worker-one' AND s.state = 'active'`).Scan(&session); err != nil {
		t.Fatal(err)
	}
	heartbeat := workerproto.HeartbeatRequest{SessionID: session}
	url := r.workerURL() + workerproto.PathHeartbeat

	if status, raw := postWorker(t, url, workerproto.CredentialPrefix+"not-a-credential-of-this-cluster", heartbeat); status != http.StatusUnauthorized {
		t.Fatalf("a wrong credential: %d %s, want 401", status, raw)
	}
	if status, raw := postWorker(t, url, two.credential, heartbeat); status != http.StatusForbidden || errCode(raw) != workerproto.CodeForbidden {
		t.Fatalf("worker-two on worker-one's session: %d %s, want 403", status, raw)
	}
	if status, raw := postWorker(t, url, one.credential, heartbeat); status != http.StatusOK {
		t.Fatalf("worker-one's own heartbeat: %d %s", status, raw)
	}

	if code, out := c.runQL(t, []string{"QL_DATABASE_ADMIN_URL=" + c.env.URL(pgstore.RoleAdmin)}, "workers", "revoke", "worker-one"); code != 0 {
		t.Fatalf("ql workers revoke: exit %d: %s", code, out)
	}
	// From the revocation's end, not from before a loaded machine started
	// ql; and each heartbeat judged by when it was sent, not by when its
	// answer came: one sent 5 s after the revocation must be refused.
	revokedAt := time.Now()
	for {
		sent := time.Now()
		if status, _ := postWorker(t, url, one.credential, heartbeat); status == http.StatusUnauthorized {
			break
		}
		if sent.Sub(revokedAt) >= 5*time.Second {
			t.Fatalf("the revoked credential was still accepted %s after its revocation", sent.Sub(revokedAt))
		}
		time.Sleep(pollEvery)
	}
	wp.wait(t)
	if wp.state.ExitCode() != 5 {
		t.Fatalf("the revoked worker exited with %v, want status 5", wp.state)
	}
}

func errCode(raw []byte) string {
	var e workerproto.Error
	_ = json.Unmarshal(raw, &e)
	return e.Code
}

// runsCancel runs `ql runs cancel` as an operator would, on the runtime
// role.
func (c *cluster) runsCancel(t testing.TB, runID string) {
	t.Helper()
	code, out := c.runQL(t, []string{"QL_DATABASE_URL=" + c.env.URL(pgstore.RoleRuntime)}, "runs", "cancel", runID)
	if code != 0 || !strings.Contains(out, runID) {
		t.Fatalf("ql runs cancel %s: exit %d: %s", runID, code, out)
	}
}
