package execution

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// grantSwallower forwards a worker's requests to a replica's ingress, but
// loses the first pull reply that carries a grant (the replica made it)
// and holds that worker's every later pull unanswered until the worker
// gives up on it: a worker stopped then never saw the grant.
type grantSwallower struct {
	url       string
	swallowed chan struct{}
}

func newGrantSwallower(t testing.TB, upstream string) *grantSwallower {
	t.Helper()
	to, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	g := &grantSwallower{swallowed: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(to)
	transport := &http.Transport{}
	rp.Transport = transport
	var lost atomic.Bool
	// held ends every pull held unanswered: when its worker gives up on it,
	// or when the test ends. The server notices a client gone only once it
	// has read the request's body, so the body is read first; and the end
	// of the test releases a pull whatever its worker did, since closing
	// the server waits for every request still being answered.
	stop := make(chan struct{})
	held := func(r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != workerproto.PathPull {
			rp.ServeHTTP(w, r)
			return
		}
		if lost.Load() {
			held(r)
			return
		}
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), `"attemptId"`) {
			lost.Store(true)
			close(g.swallowed)
			held(r)
			return
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(func() {
		close(stop)
		srv.Close()
		transport.CloseIdleConnections()
	})
	g.url = srv.URL
	return g
}

// A worker gets SIGTERM just as the replica granted it a Run whose grant
// it never saw (the pull's reply was lost): it exits 0, ending its
// session, and the replica queues the Run again at that moment — another
// worker starts it within moments, not when the grant's 30 s run lease
// passes. The grant was never started: the command runs once, on the
// second worker, as the same attempt.
func TestAWorkerStoppedHoldingAGrantItNeverSawHandsTheRunToAnotherWorkerAtOnce(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 30*time.Second)
	c.apply(t, project("handover", c.out(), map[string]string{"echo": echoTask}))
	r := c.startReplica(t, "replica", "", "")
	proxy := newGrantSwallower(t, r.workerURL())
	leaving := c.startWorker(t, c.newWorker(t, "leaving", 4), proxy.url, 1)
	taking := c.newWorker(t, "taking", 4)
	run := c.fire(t, "echo")
	select {
	case <-proxy.swallowed:
	case <-time.After(20 * time.Second):
		t.Fatal("no pull reply carried the grant")
	}
	if s := c.runState(t, run); s != "dispatching" {
		t.Fatalf("the Run is %s, want dispatching under the lost grant", s)
	}
	// The second worker is up before the first one stops, its pull waiting.
	c.startWorker(t, taking, r.workerURL(), 1)

	termMs := c.nowMs(t)
	if err := leaving.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	leaving.wait(t)
	if !leaving.state.Success() {
		t.Fatalf("the stopped worker exited with %v, want status 0", leaving.state)
	}
	exitMs := c.nowMs(t)
	c.awaitRun(t, run, 40*time.Second, "succeeded")
	as := c.attempts(t, run)
	if len(as) != 1 || as[0].Worker != "taking" || as[0].StartedAtMs == nil {
		t.Fatalf("attempts %+v, want the one grant started by the second worker", as)
	}
	startedAfter := time.Duration(*as[0].StartedAtMs-termMs) * time.Millisecond
	t.Logf("SIGTERM → the first worker exited after %s; → the Run started on the second worker after %s",
		time.Duration(exitMs-termMs)*time.Millisecond, startedAfter)
	if startedAfter > 10*time.Second {
		t.Fatalf("the Run started on the second worker %s after the first worker's SIGTERM: it waited for the lost grant's lease", startedAfter)
	}
	if n := c.env.Int(t, `SELECT count(*) FROM qinglong.run_events WHERE run_id = $1 AND name = 'run.queued' AND payload ->> 'reason' = 'session_ended'`, run); n != 1 {
		t.Fatalf("%d queued events saying the session ended, want 1", n)
	}
	if ids := readLines(t, filepath.Join(c.out(), "ids")); len(ids) != 1 || ids[0] != as[0].ID {
		t.Fatalf("executions %v, want %s once", ids, as[0].ID)
	}
}

// A second worker process starts with the credential of a running one:
// the first is replaced, and stops — its command killed, exit status 4
// (a conflict: another process holds its credential) — at the first reply
// that can tell it: its waiting pull (it has a free
// slot), answered at once, or, when every slot is busy, its next renewal;
// not at its next heartbeat, up to 10 s later.
func TestAReplacedWorkerStopsAtOnceNotAtItsNextHeartbeat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		lease       time.Duration
		concurrency int
		within      time.Duration
	}{
		// A third of the 10 s to the next heartbeat, which a worker told
		// only then would mostly outlast.
		{"a free slot, its pull waiting", 30 * time.Second, 2, 3 * time.Second},
		{"every slot busy, renewing every second", 3 * time.Second, 1, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, tc.lease)
			c.apply(t, project("replaced", c.out(), map[string]string{"sleep": holdScript + "\ntimeout: 5m"}))
			c.hold(t)
			r := c.startReplica(t, "replica", "", "")
			w := c.newWorker(t, "worker", 4)
			first := c.startWorker(t, w, r.workerURL(), tc.concurrency)
			run := c.fire(t, "sleep")
			c.awaitRun(t, run, 20*time.Second, "running")
			pid := c.awaitPid(t, c.attempts(t, run)[0].ID)

			second := *w
			second.dataDir += "-second"
			c.startWorker(t, &second, r.workerURL(), tc.concurrency)
			first.wait(t)
			if first.state.ExitCode() != 4 || first.logCount("session_replaced") != 1 {
				t.Fatalf("the replaced worker exited with %v, want status 4 after session_replaced", first.state)
			}
			if !processGone(pid) {
				t.Fatal("the replaced worker left its command running")
			}
			// Both instants on this machine's clock: the new session's
			// opening in database time, the old process's log line saying
			// it heard, before it killed its command, ended its session
			// and exited, which a loaded machine may take long to do.
			replacedMs := c.env.Int(t, `SELECT max(created_at_ms) FROM qinglong.worker_sessions`)
			heard := first.loggedAt(t, "session_replaced").Sub(time.UnixMilli(replacedMs))
			t.Logf("the replaced worker heard it %s after the second process registered, and exited %s after",
				heard, time.Duration(first.exitedAt.UnixMilli()-replacedMs)*time.Millisecond)
			if heard > tc.within {
				t.Fatalf("the replaced worker heard of the replacement %s after it, want within %s", heard, tc.within)
			}
		})
	}
}

// sessionNewsHolder forwards a worker's requests to a replica's ingress;
// once held, it holds every renewal and heartbeat unanswered until the
// worker gives up on it, so nothing but the worker's pulls can tell it
// its session changed; once heartbeatsHeld, it holds the heartbeats only,
// so a renewal is the only other way. It times the watches it forwards
// and counts the pulls (of max 1 or more) it forwards.
type sessionNewsHolder struct {
	url            string
	held           atomic.Bool
	heartbeatsHeld atomic.Bool
	watches        watchClock
	pulls          atomic.Int32
}

func newSessionNewsHolder(t testing.TB, upstream string) *sessionNewsHolder {
	t.Helper()
	to, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	h := &sessionNewsHolder{}
	rp := httputil.NewSingleHostReverseProxy(to)
	transport := &http.Transport{}
	rp.Transport = transport
	closing := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heldNow := h.held.Load() && r.URL.Path == workerproto.PathRenew
		heldNow = heldNow || ((h.held.Load() || h.heartbeatsHeld.Load()) && r.URL.Path == workerproto.PathHeartbeat)
		if heldNow {
			// Read to the end, so the server sees the worker hang up.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-closing:
			}
			return
		}
		if isWatch(r) {
			h.watches.forwarded()
		} else if r.URL.Path == workerproto.PathPull {
			h.pulls.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(closing)
		srv.Close()
		transport.CloseIdleConnections()
	})
	h.url = srv.URL
	return h
}

// busyWorker is a worker whose only slot runs a held command, at the
// default 30 s run lease, reaching its replica through a holder of session
// news that holds every renewal and heartbeat from now on: only the watch
// the worker keeps while full can tell it what happens to its session.
type busyWorker struct {
	c     *cluster
	r     *replica
	proxy *sessionNewsHolder
	w     *workerDef
	p     *proc
	run   string
	pid   int
}

// startBusyWorker starts a busyWorker in a project named name.
func startBusyWorker(t *testing.T, name string) busyWorker {
	t.Helper()
	b := busyWorker{c: newCluster(t, 30*time.Second)}
	b.c.apply(t, project(name, b.c.out(), map[string]string{"sleep": holdScript + "\ntimeout: 5m"}))
	b.c.hold(t)
	b.r = b.c.startReplica(t, "replica", "", "")
	b.proxy = newSessionNewsHolder(t, b.r.workerURL())
	b.w = b.c.newWorker(t, "worker", 4)
	b.p = b.c.startWorker(t, b.w, b.proxy.url, 1)
	b.run = b.c.fire(t, "sleep")
	b.c.awaitRun(t, b.run, 20*time.Second, "running")
	b.pid = b.c.awaitPid(t, b.c.attempts(t, b.run)[0].ID)
	b.proxy.held.Store(true)
	return b
}

// A worker whose every slot is busy, at the default 30 s run lease, is
// replaced: it stops — its command killed, exit status 4 — within moments,
// told by the watch it keeps waiting while full, not at its next renewal
// or heartbeat (both every 10 s), so two processes do not hold the
// credential for up to 10 s. The renewals and heartbeats it sends after
// the replacement are held unanswered, so only the watch can tell it.
func TestAReplacedWorkerWithEverySlotBusyStopsAtOnceAtTheDefaultLease(t *testing.T) {
	t.Parallel()
	b := startBusyWorker(t, "replacedbusy")
	c, r, w, first, pid := b.c, b.r, b.w, b.p, b.pid
	b.proxy.watches.awaitFresh(t)
	second := *w
	second.dataDir += "-second"
	c.startWorker(t, &second, r.workerURL(), 1)
	first.wait(t)
	if first.state.ExitCode() != 4 || first.logCount("session_replaced") != 1 {
		t.Fatalf("the replaced worker exited with %v, want status 4 after one session_replaced", first.state)
	}
	if !processGone(pid) {
		t.Fatal("the replaced worker left its command running")
	}
	// Both instants on this machine's clock: the new session's opening in
	// database time, the old process's log line.
	replacedMs := c.env.Int(t, `SELECT max(created_at_ms) FROM qinglong.worker_sessions`)
	heard := first.loggedAt(t, "session_replaced").Sub(time.UnixMilli(replacedMs))
	t.Logf("the replaced worker, its only slot busy, heard it %s after the second process registered, and exited %s after",
		heard, time.Duration(first.exitedAt.UnixMilli()-replacedMs)*time.Millisecond)
	if heard >= heardWithin {
		t.Fatalf("the replaced worker heard of the replacement %s after it, want within %s (before its next renewal, or its watch's end)", heard, heardWithin)
	}
}

// A worker whose every slot is busy, at the default 30 s run lease, is
// revoked with `ql workers revoke`: it stops — its command killed, exit
// status 5 (its credential refused) — within moments, told by the watch
// the revocation wakes, not when its next renewal or heartbeat is refused (both every 10 s). The
// renewals and heartbeats it sends after the revocation are held
// unanswered, so only the watch can tell it.
func TestARevokedWorkerWithEverySlotBusyStopsAtOnceAtTheDefaultLease(t *testing.T) {
	t.Parallel()
	b := startBusyWorker(t, "revokedbusy")
	c, p, pid := b.c, b.p, b.pid
	b.proxy.watches.awaitFresh(t)
	if code, out := c.runQL(t, []string{"QL_DATABASE_ADMIN_URL=" + c.env.URL(pgstore.RoleAdmin)}, "workers", "revoke", "worker"); code != 0 {
		t.Fatalf("ql workers revoke: exit %d: %s", code, out)
	}
	p.wait(t)
	if p.state.ExitCode() != 5 || p.logCount("credential_refused") != 1 {
		t.Fatalf("the revoked worker exited with %v, want status 5 after one credential_refused", p.state)
	}
	if !processGone(pid) {
		t.Fatal("the revoked worker left its command running")
	}
	// From the revocation as the database stamped it, not from before a
	// loaded machine started ql, to the worker's log line.
	revokedMs := c.env.Int(t, `SELECT revoked_at_ms FROM qinglong.workers WHERE name = 'worker'`)
	heard := p.loggedAt(t, "credential_refused").Sub(time.UnixMilli(revokedMs))
	t.Logf("the revoked worker, its only slot busy, heard it %s after the revocation, and exited %s after",
		heard, time.Duration(p.exitedAt.UnixMilli()-revokedMs)*time.Millisecond)
	if heard >= heardWithin {
		t.Fatalf("the revoked worker heard of the revocation %s after it, want within %s (before its next renewal, or its watch's end)", heard, heardWithin)
	}
}

// A worker whose every slot is busy, at the default 30 s run lease, is
// drained with `ql workers drain`: it says it drains within moments, told
// by the watch the drain wakes, not at its next renewal or heartbeat (both
// every 10 s, held unanswered here so only the watch can tell it), and
// still lets its command finish, then exits 0.
func TestADrainedWorkerWithEverySlotBusyHearsItAtOnceAndFinishesItsCommand(t *testing.T) {
	t.Parallel()
	b := startBusyWorker(t, "drainedbusy")
	c, proxy, p, run := b.c, b.proxy, b.p, b.run
	proxy.watches.awaitFresh(t)
	// The drain stamps no time of its own: counted from before ql
	// started, which only lengthens what is measured.
	drainedAt := time.Now()
	if code, out := c.runQL(t, []string{"QL_DATABASE_ADMIN_URL=" + c.env.URL(pgstore.RoleAdmin)}, "workers", "drain", "worker"); code != 0 {
		t.Fatalf("ql workers drain: exit %d: %s", code, out)
	}
	p.awaitLog(t, "worker_draining", 1, time.Minute)
	heard := p.loggedAt(t, "worker_draining").Sub(drainedAt)
	t.Logf("the drained worker, its only slot busy, said it drains %s after `ql workers drain` started", heard)
	if heard >= heardWithin {
		t.Fatalf("the drained worker heard of its drain %s after it, want within %s (before its next renewal, or its watch's end)", heard, heardWithin)
	}
	proxy.held.Store(false)
	c.release(t)
	c.awaitRun(t, run, 30*time.Second, "succeeded")
	p.wait(t)
	if p.state.ExitCode() != 0 {
		t.Fatalf("the drained worker exited with %v, want status 0 once its command ended", p.state)
	}
}

// upgradingReplica forwards a worker's requests to a replica's ingress,
// standing for one replica of a rolling upgrade: while olderThanWatch it
// refuses a watch (a pull of max 0) as a replica older than the watch
// does; once stopped it answers every request 503, as a replica going
// down for its upgrade, so the worker moves to its next --server; while
// newsHeld it holds every renewal and heartbeat unanswered. It times the
// watches it forwards.
type upgradingReplica struct {
	url            string
	olderThanWatch atomic.Bool
	stopped        atomic.Bool
	newsHeld       atomic.Bool
	watches        watchClock
}

func newUpgradingReplica(t testing.TB, upstream string) *upgradingReplica {
	t.Helper()
	to, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	u := &upgradingReplica{}
	rp := httputil.NewSingleHostReverseProxy(to)
	transport := &http.Transport{}
	rp.Transport = transport
	closing := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var pull workerproto.PullRequest
		watch := r.URL.Path == workerproto.PathPull && json.Unmarshal(body, &pull) == nil && pull.Max == 0
		switch {
		case u.stopped.Load():
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(workerproto.Error{Code: workerproto.CodeUnavailable, Message: "the replica is stopping"})
			return
		case watch && u.olderThanWatch.Load():
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(workerproto.Error{Code: workerproto.CodeInvalid, Message: "max 0 is outside 1–64"})
			return
		case u.newsHeld.Load() && (r.URL.Path == workerproto.PathRenew || r.URL.Path == workerproto.PathHeartbeat):
			select {
			case <-r.Context().Done():
			case <-closing:
			}
			return
		case watch:
			u.watches.forwarded()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(closing)
		srv.Close()
		transport.CloseIdleConnections()
	})
	u.url = srv.URL
	return u
}

// A worker whose every slot is busy, refused its watch by a replica older
// than the watch, watches again once it moves to a newer replica — as
// every worker does during a rolling upgrade, when its replica stops to be
// upgraded — and so hears a replacement there within moments, not at its
// next renewal or heartbeat (both every 10 s, held unanswered here so only
// the watch can tell it). It says once that the older replica takes no
// watch.
func TestAWorkerRefusedAWatchByAnOlderReplicaWatchesAgainOnANewerOne(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 30*time.Second)
	c.apply(t, project("upgrade", c.out(), map[string]string{"sleep": holdScript + "\ntimeout: 5m"}))
	c.hold(t)
	r := c.startReplica(t, "replica", "", "")
	older, newer := newUpgradingReplica(t, r.workerURL()), newUpgradingReplica(t, r.workerURL())
	older.olderThanWatch.Store(true)
	w := c.newWorker(t, "worker", 4)
	first := c.startWorker(t, w, older.url+","+newer.url, 1)
	run := c.fire(t, "sleep")
	c.awaitRun(t, run, 20*time.Second, "running")
	pid := c.awaitPid(t, c.attempts(t, run)[0].ID)
	first.awaitLog(t, "session_watch_unknown", 1, 10*time.Second)

	older.stopped.Store(true)
	// The worker's next renewal or heartbeat (within 10 s) finds the
	// older replica stopping and moves to the newer one.
	eventually(t, 30*time.Second, "a watch to reach the newer replica", func() bool { return newer.watches.n.Load() > 0 })
	newer.newsHeld.Store(true)
	newer.watches.awaitFresh(t)
	second := *w
	second.dataDir += "-second"
	c.startWorker(t, &second, r.workerURL(), 1)
	first.wait(t)
	if first.state.ExitCode() != 4 || first.logCount("session_replaced") != 1 || first.logCount("session_watch_unknown") != 1 {
		t.Fatalf("the replaced worker exited with %v after %d session_replaced and %d session_watch_unknown, want status 4 after one of each",
			first.state, first.logCount("session_replaced"), first.logCount("session_watch_unknown"))
	}
	if !processGone(pid) {
		t.Fatal("the replaced worker left its command running")
	}
	replacedMs := c.env.Int(t, `SELECT max(created_at_ms) FROM qinglong.worker_sessions`)
	heard := first.loggedAt(t, "session_replaced").Sub(time.UnixMilli(replacedMs))
	t.Logf("the replaced worker, on the newer replica, heard it %s after the second process registered, and exited %s after",
		heard, time.Duration(first.exitedAt.UnixMilli()-replacedMs)*time.Millisecond)
	if heard >= heardWithin {
		t.Fatalf("the replaced worker heard of the replacement %s after it, want within %s (before its next renewal, or its watch's end)", heard, heardWithin)
	}
}

// A worker started while an admin has it drained exits at once with
// status 4 (a state that does not allow it: systemd's unit does not
// restart it), saying how to undrain it, and ends the session it opened;
// resumed, the worker started again takes work.
func TestAWorkerStartedWhileDrainedExitsFourSayingHowToResumeIt(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 30*time.Second)
	c.apply(t, project("drainedstart", c.out(), map[string]string{"job": `script: echo done`}))
	r := c.startReplica(t, "replica", "", "")
	w := c.newWorker(t, "worker", 4)
	admin := []string{"QL_DATABASE_ADMIN_URL=" + c.env.URL(pgstore.RoleAdmin)}
	if code, out := c.runQL(t, admin, "workers", "drain", "worker"); code != 0 {
		t.Fatalf("ql workers drain: exit %d: %s", code, out)
	}
	p := c.startWorker(t, w, r.workerURL(), 2)
	p.wait(t)
	if p.state.ExitCode() != 4 || p.logCount("worker_drained") != 1 || !strings.Contains(tail(p.logPath, 5), "ql workers resume") {
		t.Fatalf("the worker started while drained exited with %v; want status 4 after one worker_drained saying `ql workers resume`:\n%s", p.state, tail(p.logPath, 10))
	}
	if n := c.env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions s JOIN qinglong.workers w ON w.id = s.worker_id
		WHERE w.name = 'worker' AND s.state IN ('active', 'draining')`); n != 0 {
		t.Fatalf("%d live sessions of the drained worker after it exited; want its session ended", n)
	}

	if code, out := c.runQL(t, admin, "workers", "resume", "worker"); code != 0 {
		t.Fatalf("ql workers resume: exit %d: %s", code, out)
	}
	p = c.startWorker(t, w, r.workerURL(), 2)
	run := c.fire(t, "job")
	c.awaitRun(t, run, 30*time.Second, "succeeded")
	if p.exited() {
		t.Fatalf("the resumed worker exited with %v", p.state)
	}
}
