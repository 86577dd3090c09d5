package pgstore

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// longLease outlives every test below: what they check happens at once,
// not when a lease passes.
var longLease = WorkerSettings{RunLease: 10 * time.Minute}

// pullLong pulls up to maxGrants for w under longLease.
func (s *store) pullLong(t *testing.T, w worker, maxGrants int) (workerproto.PullRequest, []workerproto.Grant) {
	t.Helper()
	req := w.offer(t, maxGrants)
	reply, err := s.runtime.PullGrants(t.Context(), w.WorkerIdentity, req, longLease)
	if err != nil || reply.State != workerproto.SessionActive || len(reply.Grants) != maxGrants {
		t.Fatalf("pull: %+v, %v; want %d grants", reply, err, maxGrants)
	}
	return req, reply.Grants
}

// lastEvent is the name and payload of a Run's latest event.
func (s *store) lastEvent(t *testing.T, runID string) (string, map[string]any) {
	t.Helper()
	var name string
	var raw []byte
	if err := s.super.QueryRow(t.Context(), `SELECT name, payload FROM qinglong.run_events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`, runID).
		Scan(&name, &raw); err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	return name, payload
}

// requireGivenBack checks that g's Run went back to the queue, unleased,
// with an event naming why.
func (s *store) requireGivenBack(t *testing.T, g workerproto.Grant, reason string) map[string]any {
	t.Helper()
	if a := s.attempt(t, g.AttemptID); a.State != "claimed" || a.LeaseVersion != nil || a.WorkerID != nil || a.ExpiresAtMs != nil {
		t.Fatalf("given-back grant %s: %+v, want claimed and unleased", g.AttemptID, a)
	}
	if state, _ := s.runState(t, g.RunID); state != "queued" {
		t.Fatalf("Run of the given-back grant is %s, want queued", state)
	}
	name, payload := s.lastEvent(t, g.RunID)
	if name != "run.queued" || payload["reason"] != reason || payload["attemptId"] != g.AttemptID {
		t.Fatalf("Run's last event %s %v, want run.queued with reason %s for attempt %s", name, payload, reason, g.AttemptID)
	}
	return payload
}

// A worker that stops cleanly ends its session holding grants it never
// started (a pull reply it never read): they go back to the queue in the
// same transaction, each Run's event saying session_ended, and another
// worker takes them at once, long before their leases pass. Only that
// session's grants, and only unstarted ones: its started attempt and
// another worker's grant keep their leases, and a start of a given-back
// grant under its old token is answered terminal.
func TestEndingASessionGivesBackItsUnstartedGrantsAtOnce(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "ending", 4)
	w := s.newWorker(t, "stopping", nil, 3)
	other := s.newWorker(t, "other", nil, 1)
	_, othersGrants := s.pullLong(t, other, 1)
	startReq, startedGrants := s.pullLong(t, w, 1)
	started := lease(startReq, startedGrants[0])
	if reply, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: started}, longLease); err != nil || reply.Reply != workerproto.ReplyRenewed {
		t.Fatalf("start: %+v, %v", reply, err)
	}
	req, unstarted := s.pullLong(t, w, 2)

	reply, err := s.runtime.EndWorkerSession(t.Context(), w.WorkerIdentity, workerproto.EndRequest{SessionID: w.session})
	if err != nil || reply.State != workerproto.SessionEnded || reply.Released != 2 {
		t.Fatalf("end: %+v, %v; want ended with its 2 unstarted grants released", reply, err)
	}
	for _, g := range unstarted {
		payload := s.requireGivenBack(t, g, ReleasedSessionEnded)
		if payload["worker"] != "stopping" || payload["session"] != w.session {
			t.Fatalf("event payload %v, want the worker and its session", payload)
		}
		if late, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: lease(req, g)}, longLease); err != nil || late.Reply != workerproto.ReplyTerminal {
			t.Fatalf("start of a given-back grant: %+v, %v; want terminal (nothing may be spawned)", late, err)
		}
	}
	if a := s.attempt(t, started.AttemptID); a.State != "running" || a.ExpiresAtMs == nil || a.WorkerID == nil {
		t.Fatalf("the session's started attempt: %+v, want running under its lease", a)
	}
	if a := s.attempt(t, othersGrants[0].AttemptID); a.State != "claimed" || a.LeaseVersion == nil {
		t.Fatalf("another worker's grant: %+v, want still leased", a)
	}
	// Offered again at once.
	taker := s.newWorker(t, "taker", nil, 2)
	if _, again := s.pullLong(t, taker, 2); !runIDs(again)[unstarted[0].RunID] || !runIDs(again)[unstarted[1].RunID] {
		t.Fatalf("the next pull got %+v, want the two given-back Runs", again)
	}
	// A replayed end changes nothing more.
	if again, err := s.runtime.EndWorkerSession(t.Context(), w.WorkerIdentity, workerproto.EndRequest{SessionID: w.session}); err != nil || again.State != workerproto.SessionEnded || again.Released != 0 {
		t.Fatalf("replayed end: %+v, %v", again, err)
	}
	s.checkRunHistories(t)
}

// A worker gives back a grant it will not start: its Run is queued at
// once, its event naming the worker's reason. The give-back is fenced as
// every lease step: another worker is forbidden, a stale version refused,
// another token or a replay finds nothing to give, and a grant whose
// start was acknowledged is never given back (the worker may have spawned
// it: it must complete it).
func TestAGrantGivenBackIsQueuedAtOnceOnlyWhileUnstartedAndUnderItsLease(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "giveback", 2)
	w := s.newWorker(t, "w1", nil, 2)
	thief := s.newWorker(t, "thief", nil, 1)
	req, grants := s.pullLong(t, w, 2)
	startedLease, l := lease(req, grants[0]), lease(req, grants[1])
	if reply, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: startedLease}, longLease); err != nil || reply.Reply != workerproto.ReplyRenewed {
		t.Fatalf("start: %+v, %v", reply, err)
	}
	give := func(who worker, l workerproto.Lease, reason string) (workerproto.GiveBackReply, error) {
		return s.runtime.GiveBackGrant(t.Context(), who.WorkerIdentity, workerproto.GiveBackRequest{Lease: l, Reason: reason})
	}
	before := s.fingerprintRuns(t)
	if reply, err := give(w, startedLease, workerproto.GiveBackStopping); err != nil || reply.Reply != workerproto.GiveBackStarted {
		t.Fatalf("give back a started attempt: %+v, %v; want started", reply, err)
	}
	if _, err := give(thief, l, workerproto.GiveBackStopping); !qlerror.Is(err, qlerror.PermissionDenied) {
		t.Fatalf("give back another worker's grant: %v, want forbidden", err)
	}
	stale := l
	stale.LeaseVersion++
	if _, err := give(w, stale, workerproto.GiveBackStopping); !qlerror.Is(err, qlerror.Conflict) {
		t.Fatalf("give back under a stale version: %v, want fenced", err)
	}
	forged := workerproto.Lease{AttemptID: l.AttemptID, Token: thief.offer(t, 1).Token, LeaseVersion: 1}
	if reply, err := give(w, forged, workerproto.GiveBackStopping); err != nil || reply.Reply != workerproto.GiveBackGone {
		t.Fatalf("give back under another token: %+v, %v; want gone", reply, err)
	}
	if _, err := give(w, l, "Not a code!"); !qlerror.Is(err, qlerror.Invalid) {
		t.Fatalf("a free-text reason: %v, want invalid", err)
	}
	if after := s.fingerprintRuns(t); after != before {
		t.Fatal("a refused give-back changed runs, attempts or events")
	}

	if reply, err := give(w, l, workerproto.GiveBackStopping); err != nil || reply.Reply != workerproto.GiveBackReleased {
		t.Fatalf("give back: %+v, %v; want released", reply, err)
	}
	if payload := s.requireGivenBack(t, grants[1], ReleasedGivenBack); payload["workerReason"] != workerproto.GiveBackStopping || payload["worker"] != "w1" {
		t.Fatalf("event payload %v, want the worker and its reason", payload)
	}
	if a := s.attempt(t, startedLease.AttemptID); a.State != "running" {
		t.Fatalf("the started attempt is %s after the other's give-back", a.State)
	}
	if reply, err := give(w, l, workerproto.GiveBackStopping); err != nil || reply.Reply != workerproto.GiveBackGone {
		t.Fatalf("replayed give-back: %+v, %v; want gone", reply, err)
	}
	if late, err := s.runtime.StartAttempt(t.Context(), w.WorkerIdentity, workerproto.StartRequest{Lease: l}, longLease); err != nil || late.Reply != workerproto.ReplyTerminal {
		t.Fatalf("start after the give-back: %+v, %v; want terminal", late, err)
	}
	if _, again := s.pullLong(t, thief, 1); again[0].RunID != grants[1].RunID {
		t.Fatalf("the next pull got %+v, want the given-back Run", again)
	}
	s.checkRunHistories(t)
}

// A registration that replaces a session gives back the replaced
// session's grants never started (their Runs queued at once, reason
// session_replaced, the replaced process's start of one answered terminal
// and told replaced), while its started attempts keep their leases: their
// renewals go on, each reply telling the replaced process its state, so
// it stops at its next renewal rather than its next heartbeat.
func TestReplacingASessionGivesBackItsUnstartedGrantsAndTellsItsRenewals(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "replacing", 2)
	old := s.newWorker(t, "w1", nil, 2)
	req, grants := s.pullLong(t, old, 2)
	running, unstarted := lease(req, grants[0]), lease(req, grants[1])
	start, err := s.runtime.StartAttempt(t.Context(), old.WorkerIdentity, workerproto.StartRequest{Lease: running}, longLease)
	if err != nil || start.Reply != workerproto.ReplyRenewed || start.SessionState != workerproto.SessionActive {
		t.Fatalf("start: %+v, %v; want renewed in an active session", start, err)
	}
	running.LeaseVersion = start.LeaseVersion

	s.register(t, old, 2, nil)
	payload := s.requireGivenBack(t, grants[1], ReleasedSessionReplaced)
	if payload["session"] != old.session {
		t.Fatalf("event payload %v, want the replaced session", payload)
	}
	if late, err := s.runtime.StartAttempt(t.Context(), old.WorkerIdentity, workerproto.StartRequest{Lease: unstarted}, longLease); err != nil || late.Reply != workerproto.ReplyTerminal {
		t.Fatalf("the replaced process's start: %+v, %v; want terminal", late, err)
	}
	renew, err := s.runtime.RenewAttempt(t.Context(), old.WorkerIdentity, workerproto.RenewRequest{Lease: running}, longLease)
	if err != nil || renew.Reply != workerproto.ReplyRenewed || renew.LeaseVersion != running.LeaseVersion+1 || renew.SessionState != workerproto.SessionReplaced {
		t.Fatalf("renewal of the replaced session's attempt: %+v, %v; want renewed (the lease is the worker's) and told replaced", renew, err)
	}
	s.checkRunHistories(t)
}

// A worker started again after a crash gives back the grants its earlier
// process never started, and may do so just as their leases pass and a
// sweep releases them too: both lock the attempt and its Run, and the
// second finds the lease gone, so each Run goes back to the queue exactly
// once — one run.queued event, from the give-back or from the sweep — and
// every grant is released by exactly one of them. A trial in which one
// side released every grant raced nothing: trials go on until both
// released some, and fail the test if none of raceTrials did.
func TestAGiveBackRacingTheSweepQueuesEachRunOnce(t *testing.T) {
	t.Parallel()
	const raceTrials = 5
	for trial := 1; trial <= raceTrials; trial++ {
		givenBack, swept := raceGiveBackAndSweep(t, newStore(t))
		t.Logf("trial %d: released by the give-back: %d, by the sweep: %d", trial, givenBack, swept)
		if givenBack > 0 && swept > 0 {
			return
		}
	}
	t.Fatalf("in each of %d trials the give-back or the sweep released every grant: the two never raced", raceTrials)
}

// raceGiveBackAndSweep gives back, in a fresh store s, grants whose
// leases have just passed while a sweep runs, checks that every Run was
// queued again exactly once, and returns how many grants the give-back
// and the sweep each released.
func raceGiveBackAndSweep(t *testing.T, s *store) (givenBack, sweptN int) {
	t.Helper()
	const n = 16
	s.admitRuns(t, "race", n)
	w := s.newWorker(t, "w1", nil, n)
	req, grants := s.pull(t, w, n)
	if len(grants) != n {
		t.Fatalf("pull granted %d, want %d", len(grants), n)
	}
	granted := make([]string, len(grants))
	for i, g := range grants {
		granted[i] = g.AttemptID
	}
	s.lapse(t, granted...)

	// The sweep pages until it finds nothing more once every give-back
	// was answered. It takes the grants in lease order, the give-backs
	// come in the reverse order, both from the same moment, so they meet
	// on the same rows.
	answered, begin := make(chan struct{}), make(chan struct{})
	swept := make(chan int, 1)
	go func() {
		<-begin
		total := 0
		defer func() { swept <- total }()
		for {
			select {
			case <-answered:
				res, err := s.runtime.SweepLeases(context.Background(), 2)
				if err != nil {
					t.Error(err)
					return
				}
				total += res.Released
				if res.Released == 0 {
					return
				}
				continue
			default:
			}
			res, err := s.runtime.SweepLeases(context.Background(), 2)
			if err != nil {
				t.Error(err)
				return
			}
			total += res.Released
		}
	}()
	var replies []string
	var failed error
	close(begin)
	for i := range grants {
		g := grants[len(grants)-1-i]
		reply, err := s.runtime.GiveBackGrant(context.Background(), w.WorkerIdentity, workerproto.GiveBackRequest{Lease: lease(req, g), Reason: workerproto.GiveBackRestarted})
		if err != nil {
			failed = err
			break
		}
		replies = append(replies, reply.Reply)
		if reply.Reply == workerproto.GiveBackReleased {
			givenBack++
		}
	}
	close(answered)
	sweptN = <-swept
	if failed != nil {
		t.Fatalf("a give-back failed: %v", failed)
	}
	for i, r := range replies {
		if r != workerproto.GiveBackReleased && r != workerproto.GiveBackGone {
			t.Fatalf("give back %s: %s, want released or gone", grants[len(grants)-1-i].AttemptID, r)
		}
	}
	// Whatever a sweep skipped while a give-back held it, the give-back
	// released; a last sweep finds nothing left.
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Released != 0 {
		t.Fatalf("a sweep after the race: %+v, %v; want nothing left to release", res, err)
	}
	if givenBack+sweptN != n {
		t.Fatalf("%d released by the give-back and %d by the sweep, want %d in all", givenBack, sweptN, n)
	}
	for _, g := range grants {
		if state, _ := s.runState(t, g.RunID); state != "queued" {
			t.Fatalf("Run %s is %s after the race, want queued", g.RunID, state)
		}
		var queued int
		if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.run_events WHERE run_id = $1 AND name = 'run.queued'`, g.RunID).Scan(&queued); err != nil {
			t.Fatal(err)
		}
		if queued != 2 {
			t.Fatalf("Run %s was queued %d times, want twice: at admission and by one release", g.RunID, queued)
		}
	}
	s.checkRunHistories(t)
	return givenBack, sweptN
}
