package pgstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

func TestSweepReleasesUnstartedAndLosesStarted(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "sweep", 2)
	w := s.newWorker(t, "w1", nil, 2)
	startedLease, startedGrant := s.started(t, w)
	req, grants := s.pull(t, w, 1)
	unstarted := grants[0]
	// Before expiry the sweep touches nothing.
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Changed() || res.NextRequeue != 0 {
		t.Fatalf("sweep before expiry: %+v, %v", res, err)
	}
	s.lapse(t, startedLease.AttemptID, unstarted.AttemptID)
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Released != 1 || res.Lost != 1 || res.RunsLost != 1 || res.Retried != 0 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	if a := s.attempt(t, unstarted.AttemptID); a.State != "claimed" || a.LeaseVersion != nil || a.WorkerID != nil {
		t.Fatalf("released grant: %+v, want claimed and unleased", a)
	}
	if state, _ := s.runState(t, unstarted.RunID); state != "queued" {
		t.Fatalf("released run is %s, want queued", state)
	}
	if a := s.attempt(t, startedLease.AttemptID); a.State != "lost" || a.ExpiresAtMs != nil {
		t.Fatalf("expired started attempt: %+v, want lost", a)
	}
	if state, _ := s.runState(t, startedGrant.RunID); state != "lost" {
		t.Fatalf("run of the lost attempt is %s, want lost", state)
	}
	// The late start of the released grant is answered terminal: nothing
	// may be spawned for it.
	reply, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: lease(req, unstarted)}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyTerminal {
		t.Fatalf("late start: %+v, %v; want terminal", reply, err)
	}
	// The released Run is offered again.
	if _, again := s.pull(t, w, 2); len(again) != 1 || again[0].AttemptID != unstarted.AttemptID {
		t.Fatalf("re-offer: %+v", again)
	}
	s.checkRunHistories(t)
}

// storedRetry is the stored command's retry member, as the codec writes it.
func storedRetry(maxAttempts int, backoffMs int64, on ...string) map[string]any {
	return map[string]any{"retry": map[string]any{"maxAttempts": maxAttempts, "backoffMs": backoffMs, "on": on}}
}

func TestRetryCreatesNextAttemptAfterBackoff(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "retry", 1)
	s.setCommand(t, projectID, storedRetry(3, 1000, "lost", "failed"))
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	reply, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1))
	if err != nil || reply.AttemptState != "failed" || reply.RunState != "retry_wait" {
		t.Fatalf("failed completion: %+v, %v; want failed and retry_wait", reply, err)
	}
	var next string
	if err := s.super.QueryRow(t.Context(), `SELECT id FROM qinglong.attempts WHERE run_id = $1 AND number = 2`, g.RunID).Scan(&next); err != nil {
		t.Fatal(err)
	}
	a := s.attempt(t, next)
	if a.State != "claimed" || a.AvailableAtMs == nil {
		t.Fatalf("attempt 2: %+v", a)
	}
	// Not before the backoff: neither the sweep nor a pull takes it.
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Requeued != 0 {
		t.Fatalf("sweep inside the backoff: %+v, %v", res, err)
	}
	if _, grants := s.pull(t, w, 1); len(grants) != 0 {
		t.Fatalf("pulled %+v inside the backoff", grants)
	}
	s.waitPast(t, *a.AvailableAtMs)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Requeued != 1 {
		t.Fatalf("sweep after the backoff: %+v, %v", res, err)
	}
	// Attempt 2 is lost this time (the worker vanished): retried again.
	l2, g2 := s.started(t, w)
	if g2.AttemptID != next || g2.AttemptNumber != 2 {
		t.Fatalf("granted %+v, want attempt 2 (%s)", g2, next)
	}
	s.lapse(t, l2.AttemptID)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 || res.Retried != 1 {
		t.Fatalf("sweep of the lost attempt 2: %+v, %v", res, err)
	}
	if state, _ := s.runState(t, g.RunID); state != "retry_wait" {
		t.Fatalf("run is %s, want retry_wait", state)
	}
	s.checkRunHistories(t)
}

func TestRetryStopsAtMaxAttempts(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "bounded", 1)
	s.setCommand(t, projectID, storedRetry(2, 0, "failed"))
	w := s.newWorker(t, "w1", nil, 1)
	var runID string
	for n := 1; n <= 2; n++ {
		l, g := s.started(t, w)
		if runID == "" {
			runID = g.RunID
		}
		if g.RunID != runID || g.AttemptNumber != n {
			t.Fatalf("granted %+v, want attempt %d of run %s", g, n, runID)
		}
		reply, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1))
		want := "retry_wait"
		if n == 2 {
			want = "failed"
		}
		if err != nil || reply.RunState != want {
			t.Fatalf("attempt %d failed: %+v, %v; want run %s", n, reply, err, want)
		}
		if _, err := s.runtime.SweepLeases(t.Context(), 10); err != nil {
			t.Fatal(err)
		}
	}
	var attempts int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.attempts WHERE run_id = $1`, runID).Scan(&attempts); err != nil || attempts != 2 {
		t.Fatalf("%d attempts (%v), want exactly maxAttempts = 2", attempts, err)
	}
	// An outcome not in the policy never retries: a lost attempt here.
	lostProject, _ := s.admitRuns(t, "bounded-lost", 1)
	s.setCommand(t, lostProject, storedRetry(2, 0, "failed"))
	l, g := s.started(t, w)
	s.lapse(t, l.AttemptID)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.RunsLost != 1 || res.Retried != 0 {
		t.Fatalf("sweep: %+v, %v; want the run lost, not retried", res, err)
	}
	if state, _ := s.runState(t, g.RunID); state != "lost" {
		t.Fatalf("run is %s, want lost", state)
	}
	s.checkRunHistories(t)
}

func TestCancelQueuedAtOnceRunningOnRenew(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "cancel", 3)
	queued := runs["t000"]
	got, eff, err := s.runtime.CancelRun(t.Context(), queued, "test")
	if err != nil || got.State != "cancelled" || !eff.Finished {
		t.Fatalf("cancel queued: %+v, effect %+v, %v; want it cancelled by this call", got, eff, err)
	}
	var attemptState string
	if err := s.super.QueryRow(t.Context(), `SELECT state FROM qinglong.attempts WHERE run_id = $1`, queued).Scan(&attemptState); err != nil || attemptState != "cancelled" {
		t.Fatalf("attempt of the cancelled queued run is %s (%v)", attemptState, err)
	}
	// The repeat must not report that it ended the Run: `ql runs cancel`
	// says "already cancelled" from this alone.
	if again, eff, err := s.runtime.CancelRun(t.Context(), queued, "test"); err != nil || again.State != "cancelled" || again.Version != got.Version || eff != (run.CancelEffect{}) {
		t.Fatalf("cancel of a cancelled run: %+v, effect %+v, %v; want it returned as it is, not finished by this call", again, eff, err)
	}
	w := s.newWorker(t, "w1", nil, 2)
	// Granted, not started: cancelled at once, and the late start is
	// answered terminal.
	req, grants := s.pull(t, w, 1)
	if got, _, err := s.runtime.CancelRun(t.Context(), grants[0].RunID, "test"); err != nil || got.State != "cancelled" {
		t.Fatalf("cancel dispatching: %+v, %v", got, err)
	}
	if reply, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: lease(req, grants[0])}, testSettings); err != nil || reply.Reply != workerproto.ReplyTerminal {
		t.Fatalf("start of a cancelled grant: %+v, %v", reply, err)
	}
	// Running: only the intent; the worker hears stop on renew.
	l, g := s.started(t, w)
	got, eff, err = s.runtime.CancelRun(t.Context(), g.RunID, "test")
	if err != nil || got.State != "running" || eff != (run.CancelEffect{}) {
		t.Fatalf("cancel running: %+v, %v; want still running with the intent", got, err)
	}
	if again, _, err := s.runtime.CancelRun(t.Context(), g.RunID, "test"); err != nil || again.Version != got.Version {
		t.Fatalf("second cancel of a running run changed it: %+v, %v", again, err)
	}
	reply, err := s.runtime.RenewAttempt(t.Context(), w.WorkerIdentity, workerproto.RenewRequest{Lease: l}, testSettings)
	if err != nil || reply.Reply != workerproto.ReplyStop || reply.StopReason != workerproto.StopCancelled {
		t.Fatalf("renew: %+v, %v", reply, err)
	}
	if _, _, err := s.runtime.CancelRun(t.Context(), "01a22c0e-66df-7d16-810d-c6d839545928", "test"); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("cancel of an unknown run: %v", err)
	}
	s.checkRunHistories(t)
}

func TestRevokedCredentialIsRefused(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.newWorker(t, "w1", nil, 1)
	for _, bad := range []string{"", "qlw_wrong", w.credential + "x", strings.TrimPrefix(w.credential, workerproto.CredentialPrefix)} {
		if _, err := s.runtime.AuthenticateWorker(t.Context(), bad); !qlerror.Is(err, qlerror.Unauthenticated) {
			t.Errorf("credential %q: %v, want unauthenticated", bad, err)
		}
	}
	if _, err := s.admin.WorkerRevoke(t.Context(), "w1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.runtime.AuthenticateWorker(t.Context(), w.credential); !qlerror.Is(err, qlerror.Unauthenticated) {
		t.Fatalf("revoked credential: %v, want unauthenticated on the next request", err)
	}
	if _, err := s.runtime.RegisterWorker(t.Context(), w.WorkerIdentity, workerproto.RegisterRequest{Capacity: 1}, testSettings); !qlerror.Is(err, qlerror.Unauthenticated) {
		t.Fatalf("register after revocation: %v", err)
	}
	if reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, w.offer(t, 1), testSettings); err != nil || reply.State != workerproto.SessionRevoked {
		t.Fatalf("pull of a session opened before revocation: %+v, %v", reply, err)
	}
	if _, err := s.admin.WorkerRevoke(t.Context(), "nobody"); !qlerror.Is(err, qlerror.NotFound) || !strings.Contains(err.Error(), "nobody") {
		t.Fatalf("revoke of an unknown worker: %v", err)
	}
}

func TestWorkerCredentialIsShownOnceAndStoredAsDigest(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	cred, err := s.admin.WorkerCreate(t.Context(), "builder", map[string]string{"arch": "arm64"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cred, workerproto.CredentialPrefix) || len(cred) != len(workerproto.CredentialPrefix)+43 {
		t.Fatalf("credential %q: want the prefix and 32 random bytes in base64url", cred)
	}
	var found int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.workers w WHERE position($1 in w::text) > 0`,
		strings.TrimPrefix(cred, workerproto.CredentialPrefix)).Scan(&found); err != nil || found != 0 {
		t.Fatalf("the credential is stored in clear (%d rows, %v)", found, err)
	}
	if _, err := s.admin.WorkerCreate(t.Context(), "builder", nil, 1); !qlerror.Is(err, qlerror.Conflict) || !strings.Contains(err.Error(), "builder") {
		t.Fatalf("duplicate name: %v", err)
	}
	if _, err := s.admin.WorkerCreate(t.Context(), "Bad Name", nil, 1); !qlerror.Is(err, qlerror.Invalid) {
		t.Fatalf("bad name: %v", err)
	}
	if _, err := s.admin.WorkerCreate(t.Context(), "big", nil, workerproto.MaxCapacity+1); !qlerror.Is(err, qlerror.Invalid) {
		t.Fatalf("max concurrency over the limit: %v", err)
	}
	if err := s.admin.WorkerDrain(t.Context(), "ghost"); !qlerror.Is(err, qlerror.NotFound) || !strings.Contains(err.Error(), "ghost") {
		t.Fatalf("drain of an unknown worker: %v", err)
	}
}

func TestRegisterReplacesThePreviousSessionAndMergesLabels(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	cred, err := s.admin.WorkerCreate(t.Context(), "w1", map[string]string{"zone": "eu"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.runtime.AuthenticateWorker(t.Context(), cred)
	if err != nil {
		t.Fatal(err)
	}
	w := worker{WorkerIdentity: id}
	first := s.register(t, w, 8, map[string]string{"gpu": "yes"})
	if first.Generation != 1 || first.Capacity != 2 || first.Labels["zone"] != "eu" || first.Labels["gpu"] != "yes" || first.RunLeaseMs != testSettings.RunLease.Milliseconds() {
		t.Fatalf("first session: %+v", first)
	}
	second := s.register(t, w, 1, nil)
	if second.Generation != 2 || second.Capacity != 1 {
		t.Fatalf("second session: %+v", second)
	}
	hb, err := s.runtime.HeartbeatWorker(t.Context(), id, workerproto.HeartbeatRequest{SessionID: first.SessionID})
	if err != nil || hb.State != workerproto.SessionReplaced {
		t.Fatalf("heartbeat of the replaced session: %+v, %v", hb, err)
	}
	hb, err = s.runtime.HeartbeatWorker(t.Context(), id, workerproto.HeartbeatRequest{SessionID: second.SessionID, Running: 1})
	if err != nil || hb.State != workerproto.SessionActive || hb.SessionLeaseMs != workerproto.SessionLease.Milliseconds() {
		t.Fatalf("heartbeat: %+v, %v", hb, err)
	}
	if _, err := s.runtime.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 1, Labels: map[string]string{"zone": "us"}}, testSettings); !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "zone") {
		t.Fatalf("contradicting label: %v", err)
	}
	list, err := s.admin.WorkerList(t.Context())
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if got := list[0]; got.Name != "w1" || got.Sessions != 1 || got.Capacity != 1 || got.FreeSlots != 0 || got.State != "active" || got.LastHeartbeatMs == nil || got.Labels["zone"] != "eu" {
		t.Fatalf("listed %+v", got)
	}
}

func TestConcurrentRegistrationsLeaveOneLiveSession(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.newWorker(t, "w1", nil, 1)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := s.runtime.RegisterWorker(t.Context(), w.WorkerIdentity, workerproto.RegisterRequest{Capacity: 1}, testSettings)
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	var live, total int
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE state = 'active'), count(*) FROM qinglong.worker_sessions`).Scan(&live, &total); err != nil {
		t.Fatal(err)
	}
	if live != 1 || total != 9 {
		t.Fatalf("%d live of %d sessions, want exactly 1 of 9", live, total)
	}
}

// listening starts a queued-runs listener and returns once it heard a
// notification of its own (it may not be subscribed at first) and went
// quiet: its later wake-ups arrive on woken; stop ends it and returns what
// it ended with.
func listening(t *testing.T, s *store) (woken chan struct{}, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	woken = make(chan struct{}, 64)
	done := make(chan error, 1)
	go func() { done <- s.runtime.Listen(ctx, Notices{RunsQueued: func(bool) { woken <- struct{}{} }}) }()
	deadline := time.After(10 * time.Second)
	for heard := false; !heard; {
		if err := s.runtime.NotifyRunsQueued(t.Context()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-woken:
			heard = true
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("no wake-up within 10 s of notifying")
		}
	}
	time.Sleep(200 * time.Millisecond)
	for len(woken) > 0 {
		<-woken
	}
	return woken, func() error { cancel(); return <-done }
}

func TestNotifyRunsQueuedWakesTheListener(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, stop := listening(t, s)
	if err := stop(); err != nil {
		t.Fatalf("listener ended with %v when its context ended, want nil", err)
	}
}

// A manual Run — run now, re-run or backfill, from any process — wakes the
// pulls waiting on every replica after its COMMIT, so it starts at once
// rather than at a pull's next bounded wait.
func TestAManualRunWakesTheWaitingPulls(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	triggerID := s.applyTrigger(t, "m", "{name: yearly, task: job, cron: \"0 0 1 1 *\", timezone: UTC}", "yearly")
	woken, stop := listening(t, s)
	res, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: "wake"})
	if err != nil || !res.Created {
		t.Fatalf("run now: %+v, %v", res, err)
	}
	select {
	case <-woken:
	case <-time.After(5 * time.Second):
		t.Fatal("run now queued a Run and no waiting pull was woken within 5 s")
	}
	if err := stop(); err != nil {
		t.Fatalf("listener: %v", err)
	}
}

func TestRuntimeRoleCannotDeleteAndAdminCannotTouchAttempts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	runtime := e.conn(t, RoleRuntime)
	for _, table := range []string{"workers", "worker_sessions", "attempts", "runs", "run_log_chunks", "run_events"} {
		if _, err := runtime.Exec(t.Context(), "DELETE FROM qinglong."+table); sqlState(err) != stateInsufficientPriv {
			t.Errorf("runtime DELETE FROM %s: %v, want permission denied", table, err)
		}
	}
	for _, q := range []string{"UPDATE qinglong.workers SET state = 'active'", "INSERT INTO qinglong.workers (id) VALUES (gen_random_uuid())",
		"UPDATE qinglong.run_log_chunks SET bytes = 'x'"} {
		if _, err := runtime.Exec(t.Context(), q); sqlState(err) != stateInsufficientPriv {
			t.Errorf("runtime %q: %v, want permission denied", q, err)
		}
	}
	admin := e.conn(t, RoleAdmin)
	for _, q := range []string{"SELECT 1 FROM qinglong.attempts", "UPDATE qinglong.attempts SET state = 'lost'",
		"SELECT 1 FROM qinglong.run_log_chunks", "UPDATE qinglong.worker_sessions SET state = 'expired'", "DELETE FROM qinglong.workers"} {
		if _, err := admin.Exec(t.Context(), q); sqlState(err) != stateInsufficientPriv {
			t.Errorf("admin %q: %v, want permission denied", q, err)
		}
	}
	ingress := e.conn(t, RoleWorkerIngress)
	for _, table := range []string{"workers", "worker_sessions", "attempts", "run_log_chunks"} {
		if _, err := ingress.Exec(t.Context(), "SELECT 1 FROM qinglong."+table); sqlState(err) != stateInsufficientPriv {
			t.Errorf("worker_ingress SELECT on %s: %v, want permission denied", table, err)
		}
	}
}

func TestLostAttemptOfACancelledRunEndsItCancelledNotRetried(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "gone", 1)
	s.setCommand(t, projectID, storedRetry(3, 0, "lost"))
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	if _, _, err := s.runtime.CancelRun(t.Context(), g.RunID, "test"); err != nil {
		t.Fatal(err)
	}
	// The worker vanished before it heard the stop.
	s.lapse(t, l.AttemptID)
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Lost != 1 || res.Retried != 0 || res.RunsLost != 0 || res.Finished != (run.FinishCounts{Cancelled: 1}) {
		t.Fatalf("sweep %+v, %v; want the attempt lost, the run neither retried nor lost but finished cancelled", res, err)
	}
	if state, _ := s.runState(t, g.RunID); state != "cancelled" {
		t.Fatalf("run is %s, want cancelled: the cancel intent wins over the retry policy", state)
	}
	s.checkRunHistories(t)
}

// A revoked credential's process is refused and exits: its session, whose
// lease has not passed yet, is no longer counted live by the workers list
// nor by the metric.
func TestARevokedCredentialsSessionsAreNotCountedLive(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.newWorker(t, "revoked", nil, 2)
	count := func() (listed, metric int) {
		ws, err := s.admin.WorkerList(t.Context())
		if err != nil || len(ws) != 1 {
			t.Fatalf("workers list: %+v, %v", ws, err)
		}
		c, err := s.runtime.WorkerCapacity(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return ws[0].Sessions, c.Sessions
	}
	if listed, metric := count(); listed != 1 || metric != 1 {
		t.Fatalf("before the revocation the list counts %d sessions and the metric %d, want 1", listed, metric)
	}
	if _, err := s.admin.WorkerRevoke(t.Context(), "revoked"); err != nil {
		t.Fatal(err)
	}
	if listed, metric := count(); listed != 0 || metric != 0 {
		t.Fatalf("after the revocation the list counts %d sessions and the metric %d, want 0", listed, metric)
	}
}

// A worker whose credential is revoked while its command runs is refused
// and kills the command; when the lease runs out the attempt is lost with
// that reason, not as a worker that crashed or was cut off.
func TestAnAttemptWhoseWorkerWasRevokedWhileItRanIsLostAsWorkerRevoked(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "revoked", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, g := s.started(t, w)
	if _, err := s.admin.WorkerRevoke(t.Context(), "w1"); err != nil {
		t.Fatal(err)
	}
	s.lapse(t, l.AttemptID)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	var state, code, message, runCode string
	if err := s.super.QueryRow(t.Context(), `SELECT a.state, a.error_code, a.error_message, coalesce(e.payload ->> 'errorCode', '')
		FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id JOIN qinglong.run_events e ON e.run_id = r.id AND e.seq = r.last_event_seq
		WHERE a.id = $1`, l.AttemptID).Scan(&state, &code, &message, &runCode); err != nil {
		t.Fatal(err)
	}
	if state != "lost" || code != "worker_revoked" || runCode != "worker_revoked" || !strings.Contains(message, "revoked") {
		t.Fatalf("attempt of run %s: %s, %s %q, run %s; want lost with worker_revoked, in the Run's end event too", g.RunID, state, code, message, runCode)
	}
}

// sweptEnd reads how the sweep ended attempt id: its state, error code and
// message, and the error code of its Run's last event.
func (s *store) sweptEnd(t *testing.T, id string) (state, code, message, runCode string) {
	t.Helper()
	if err := s.super.QueryRow(t.Context(), `SELECT a.state, a.error_code, a.error_message, coalesce(e.payload ->> 'errorCode', '')
		FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id JOIN qinglong.run_events e ON e.run_id = r.id AND e.seq = r.last_event_seq
		WHERE a.id = $1`, id).Scan(&state, &code, &message, &runCode); err != nil {
		t.Fatal(err)
	}
	return state, code, message, runCode
}

// A lease no replica swept until long after it ran out (in database time)
// ran out while the replicas could not reach the database, or none ran:
// they refused the renewals, and the attempt is lost with that reason, in
// its Run's end event too, not as a worker that stopped renewing.
func TestALeaseNoReplicaSweptUntilLongAfterItRanOutIsLostToTheReplicasNotTheWorker(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "outage", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	// What an outage leaves: the last renewal's expiry, long past when a
	// replica reaches the database again.
	s.exec(t, `UPDATE qinglong.attempts SET lease_expires_at_ms = `+ClockMsSQL+` - $2 WHERE id = $1`, l.AttemptID, (SweptLateAfter + time.Second).Milliseconds())
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	state, code, message, runCode := s.sweptEnd(t, l.AttemptID)
	if state != "lost" || code != ErrorCodeLeaseExpiredUnswept || runCode != ErrorCodeLeaseExpiredUnswept || !strings.Contains(message, "could not reach the database") {
		t.Fatalf("attempt: %s, %s %q, run %s; want lost with %s, in the Run's end event too", state, code, message, runCode, ErrorCodeLeaseExpiredUnswept)
	}
}

// A lease swept within moments of running out is lost as its worker's:
// the replicas reached the database, so the worker stopped renewing.
func TestALeaseSweptSoonAfterItRanOutIsLostAsItsWorkersStoppedRenewals(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "crashed", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	s.exec(t, `UPDATE qinglong.attempts SET lease_expires_at_ms = `+ClockMsSQL+` - 1 WHERE id = $1`, l.AttemptID)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	if state, code, message, _ := s.sweptEnd(t, l.AttemptID); state != "lost" || code != ErrorCodeLeaseExpired || !strings.Contains(message, "stopped renewing") {
		t.Fatalf("attempt: %s, %s %q; want lost with %s", state, code, message, ErrorCodeLeaseExpired)
	}
}

// A crashed worker's command may outlive it on its host, and nothing on the
// replica can end it: the message of an attempt its worker stopped renewing
// says what does (the worker started again on its data directory) and that
// a retry policy on lost runs it again, where the on-call engineer reads it
// (the Run page, ql runs show).
func TestAnAttemptLostToItsWorkersStoppedRenewalsSaysHowToEndWhatIsLeftOfItsCommand(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "killed", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	s.exec(t, `UPDATE qinglong.attempts SET lease_expires_at_ms = `+ClockMsSQL+` - 1 WHERE id = $1`, l.AttemptID)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	_, _, message, _ := s.sweptEnd(t, l.AttemptID)
	if !strings.Contains(message, "until the worker is started again on the same data directory") || !strings.Contains(message, "a retry policy on lost runs it again") {
		t.Fatalf("attempt lost to an expired lease says %q; want how to end what is left of its command, and the retry policy that runs it again", message)
	}
}

// A lease that ran out no earlier than its attempt's deadline ends the
// attempt timed out, not lost: the command was past its timeout whatever
// its worker did, and the attempt, and its Run's end event, say so in the
// words the console translates (run.LeaseExpiredAfterTimeoutMessage).
func TestALeaseThatRanOutPastItsAttemptsDeadlineEndsItTimedOut(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "overdue", 1)
	w := s.newWorker(t, "w1", nil, 1)
	l, _ := s.started(t, w)
	s.exec(t, `UPDATE qinglong.attempts SET lease_expires_at_ms = `+ClockMsSQL+` - 1, deadline_at_ms = `+ClockMsSQL+` - 2 WHERE id = $1`, l.AttemptID)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Lost != 1 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	state, code, message, runCode := s.sweptEnd(t, l.AttemptID)
	if state != "timed_out" || code != ErrorCodeLeaseExpiredAfterTimeout || runCode != ErrorCodeLeaseExpiredAfterTimeout || message != run.LeaseExpiredAfterTimeoutMessage {
		t.Fatalf("attempt: %s, %s %q, run %s; want timed_out with %s and %q, in the Run's end event too", state, code, message, runCode, ErrorCodeLeaseExpiredAfterTimeout, run.LeaseExpiredAfterTimeoutMessage)
	}
}
