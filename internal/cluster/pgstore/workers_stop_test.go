package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// stopNotices hears the stop-asked notices of a store's database.
type stopNotices struct {
	s       *store
	heard   chan string
	markers int
}

// listenStops listens for stop-asked notices and returns once subscribed.
func listenStops(t *testing.T, s *store) *stopNotices {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	n := &stopNotices{s: s, heard: make(chan string, 64)}
	done := make(chan error, 1)
	go func() { done <- s.runtime.Listen(ctx, Notices{StopAsked: func(session string) { n.heard <- session }}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("listener ended with %v when its context ended, want nil", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		marker := n.mark(t)
		select {
		case got := <-n.heard:
			if got == marker {
				return n
			}
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("not subscribed within 10 s")
		}
	}
}

// mark sends a stop-asked notice naming a marker no session has.
func (n *stopNotices) mark(t *testing.T) string {
	t.Helper()
	n.markers++
	marker := fmt.Sprintf("marker-%d", n.markers)
	notifyStopAsked(t.Context(), n.s.runtime.pool, []string{marker})
	return marker
}

// expect fails unless the sessions woken since the last call are want, in
// order. Notices are delivered in the order of their commits (and each
// test has a database of its own), so once a marker sent afterwards has
// arrived, every notice of what came before it has too.
func (n *stopNotices) expect(t *testing.T, what string, want ...string) {
	t.Helper()
	marker := n.mark(t)
	var got []string
	for {
		select {
		case s := <-n.heard:
			if s == marker {
				if !slices.Equal(got, want) {
					t.Fatalf("%s woke the sessions %v, want %v", what, got, want)
				}
				return
			}
			if !strings.HasPrefix(s, "marker-") {
				got = append(got, s)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the marker sent after it was not heard within 10 s", what)
		}
	}
}

// Every path that asks a running attempt to stop — a cancel (`ql runs
// cancel`, the API's and the console's all call CancelRun), and a
// cancel_previous trigger admitting a Run behind it by its clock (a page
// or a single commit), by run now or by a re-run — wakes the session
// holding the attempt once it has committed, naming that session only, so
// its worker's waiting pull or watch can tell it at once. A cancel that
// asks nothing (the stop was asked already, or the Run was not started:
// it is cancelled at once) wakes no session.
func TestEveryPathThatAsksARunningAttemptToStopWakesItsSessionOnceCommitted(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	n := listenStops(t, s)
	triggerID := s.applyTrigger(t, "c", "{name: tick, task: job, cron: \"0 0 1 1 *\", timezone: UTC, overlap: cancel_previous}", "tick")
	cfg := schedule.RoundConfig{PageSize: 4, GraceMs: testGraceMs, Parallel: 1, NewIDs: ids.Fill}
	if sum, err := schedule.Round(t.Context(), s.runtime, cfg); err != nil || sum.Counts[schedule.Initialized] != 1 {
		t.Fatalf("initialising round: %v %v %v", sum.Counts, sum.Errors, err)
	}
	w := s.newWorker(t, "w1", nil, 4)
	s.newWorker(t, "bystander", nil, 4)
	runNow := func(request string) schedule.RunNowResult {
		t.Helper()
		out, err := s.runtime.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: triggerID, RequestID: request})
		if err != nil || !out.Created {
			t.Fatalf("run now %s: %+v, %v", request, out, err)
		}
		return out
	}
	stopped := func(l workerproto.Lease) {
		t.Helper()
		if _, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, workerproto.CompleteRequest{Lease: l, Outcome: workerproto.OutcomeStopped}); err != nil {
			t.Fatal(err)
		}
	}
	cancel := func(runID string) {
		t.Helper()
		if _, _, err := s.runtime.CancelRun(t.Context(), runID, "test"); err != nil {
			t.Fatal(err)
		}
	}

	first := runNow("one")
	n.expect(t, "a Run queued")
	l, _ := s.started(t, w)
	cancel(first.RunID)
	n.expect(t, "a cancel of a running Run", w.session)
	cancel(first.RunID)
	n.expect(t, "a second cancel of that Run")
	stopped(l)
	cancel(runNow("two").RunID)
	n.expect(t, "a cancel of a queued Run")

	runNow("three")
	l, _ = s.started(t, w)
	runNow("four")
	n.expect(t, "cancel_previous on run now", w.session)
	stopped(l)

	l, _ = s.started(t, w)
	if err := s.makeDue(t.Context(), triggerID, 1_000); err != nil {
		t.Fatal(err)
	}
	if sum, err := schedule.Round(t.Context(), s.runtime, cfg); err != nil || sum.Counts[schedule.Admitted] != 1 {
		t.Fatalf("admitting round: %v %v %v", sum.Counts, sum.Errors, err)
	}
	n.expect(t, "cancel_previous on a clock admission committed as a page", w.session)
	stopped(l)

	l, _ = s.started(t, w)
	if err := s.makeDue(t.Context(), triggerID, 1_000); err != nil {
		t.Fatal(err)
	}
	if res, err := s.runtime.ScheduleCommit(t.Context(), params(t, s.takeOne(t, s.runtime))); err != nil || res.Outcome != schedule.Admitted {
		t.Fatalf("single commit: %+v, %v", res, err)
	}
	n.expect(t, "cancel_previous on a clock admission committed alone", w.session)
	stopped(l)

	l, _ = s.started(t, w)
	if out, err := s.runtime.RunRerun(t.Context(), schedule.RerunRequest{RunID: first.RunID, RequestID: "again"}); err != nil || !out.Created {
		t.Fatalf("re-run: %+v, %v", out, err)
	}
	n.expect(t, "cancel_previous on a re-run", w.session)
	stopped(l)
}

// StopsAsked names exactly the attempts of the session, started and
// running, whose Run a stop was asked of — not an unstarted grant, not an
// attempt of another session of the same worker — and reads them through
// attempts_session_live_idx, however many attempts other sessions hold.
func TestTheStopsAskedOfASessionAreReadThroughItsLiveAttemptsIndex(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "stops", 4)
	w := s.newWorker(t, "w1", nil, 4)
	other := s.newWorker(t, "w2", nil, 4)
	_, askedOf := s.started(t, w)
	_, running := s.started(t, w)
	_, unstarted := s.pull(t, w, 1)
	_, elsewhere := s.started(t, other)
	for _, runID := range []string{askedOf.RunID, elsewhere.RunID} {
		if _, _, err := s.runtime.CancelRun(t.Context(), runID, "test"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.runtime.StopsAsked(t.Context(), w.WorkerIdentity, w.session)
	if err != nil || !slices.Equal(got, []string{askedOf.AttemptID}) {
		t.Fatalf("stops asked of the session: %v, %v; want only %s (running %s and unstarted %s were not cancelled)", got, err, askedOf.AttemptID, running.AttemptID, unstarted[0].AttemptID)
	}
	if got, err := s.runtime.StopsAsked(t.Context(), w.WorkerIdentity, other.session); err != nil || len(got) != 0 {
		t.Fatalf("stops asked of another worker's session, read as w1: %v, %v; want none", got, err)
	}

	// Thousands of ended attempts of the session, of the very Run asked
	// to stop, must not be read: only its live ones are in the index.
	s.exec(t, `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, worker_id, session_id, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), a.run_id, 100 + g, 'remote_worker', 'cancelled', a.worker_id, a.session_id, a.created_at_ms, a.created_at_ms
		FROM qinglong.attempts a, generate_series(1, 5000) g WHERE a.id = $1`, askedOf.AttemptID)
	s.exec(t, `ANALYZE`)
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	top, out := explainPlan(t, tx, "stops asked", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlSessionStopsAsked, w.session, w.ID)
	usesIndex, attemptReads := false, 0
	top.walk(func(n planNode) {
		if n.Relation == "attempts" {
			usesIndex = usesIndex || n.IndexName == "attempts_session_live_idx"
			attemptReads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	if !usesIndex || attemptReads > 10 {
		t.Fatalf("the read of a session's stops used attempts_session_live_idx: %v, read %d attempts rows; plan:\n%s", usesIndex, attemptReads, out)
	}
}
