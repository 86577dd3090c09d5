package pgstore

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// Counting the workers per state reads the live sessions and the sessions
// expired within the window, however many ended, replaced and long-expired
// sessions the table holds: with 6,000 of those beside one live session
// and one expired two minutes ago, the statement reads a handful of
// worker_sessions rows, and counts one active and, its worker not back
// within its grace (a run lease of half a minute and a session lease),
// one lost.
func TestCountingWorkersPerStateReadsOnlyLiveAndRecentlyExpiredSessions(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	live := s.newWorker(t, "live", nil, 1)
	gone := s.newWorker(t, "gone", nil, 1)
	// History: sessions of the live worker's earlier generations, ended,
	// replaced or expired two hours ago and more.
	s.exec(t, `INSERT INTO qinglong.worker_sessions (id, worker_id, generation, labels, capacity, running, version, state,
	                                                created_at_ms, heartbeat_at_ms, lease_expires_at_ms, updated_at_ms)
	           SELECT gen_random_uuid(), s.worker_id, 1000 + g, s.labels, 1, 0, s.version, (ARRAY['ended', 'replaced', 'expired'])[1 + g % 3],
	                  s.created_at_ms - 7200000 - g * 1000, s.created_at_ms - 7200000 - g * 1000,
	                  s.created_at_ms - 7200000 - g * 1000 + 45000, s.created_at_ms - 7200000 - g * 1000 + 45000
	             FROM qinglong.worker_sessions s, generate_series(1, 6000) g
	            WHERE s.id = $1`, live.session)
	s.exec(t, `UPDATE qinglong.worker_sessions SET state = 'expired', updated_at_ms = updated_at_ms - 120000,
	               created_at_ms = created_at_ms - 120000, heartbeat_at_ms = heartbeat_at_ms - 120000, lease_expires_at_ms = lease_expires_at_ms - 120000
	            WHERE id = $1`, gone.session)
	s.exec(t, `ANALYZE`)
	const limit = 100
	window := time.Hour
	top, plan := explainPlan(t, s.super, "worker states", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlMonitorWorkerStates, window.Milliseconds(), limit, testLease.Milliseconds(), workerproto.SessionLease.Milliseconds())
	reads := 0
	top.walk(func(n planNode) {
		if n.Relation == "worker_sessions" {
			reads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	t.Logf("6,002 sessions, 1 live and 1 expired within the window: %d worker_sessions rows read", reads)
	if budget := 8; reads > budget {
		t.Fatalf("the count read %d worker_sessions rows (budget %d); plan:\n%s", reads, budget, plan)
	}
	c, err := s.runtime.WorkerStates(t.Context(), window, testLease, limit)
	if err != nil || c != (WorkerStates{Active: 1, Lost: 1}) {
		t.Fatalf("worker states %+v, %v; want one active and one lost", c, err)
	}
}

// A worker whose session expired and that registered again within the
// grace (a database outage expired every session, and it came back) is
// not lost; one that did not, because it never came back or only after
// the grace, is, from the end of the grace on; one whose grace has not
// passed yet is expired, not lost.
func TestAWorkerThatRegistersAgainWithinTheGraceIsNotCountedLost(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	// The sessions are registered under testLease: the grace is it and a
	// session lease, 75 s.
	// expire makes w's current session one the sweep expired ago before
	// its registration, and returns its id.
	expire := func(w worker, ago time.Duration) string {
		s.exec(t, `UPDATE qinglong.worker_sessions SET state = 'expired', created_at_ms = created_at_ms - $2, heartbeat_at_ms = heartbeat_at_ms - $2,
		               lease_expires_at_ms = lease_expires_at_ms - $2, updated_at_ms = updated_at_ms - $2 WHERE id = $1`, w.session, ago.Milliseconds())
		return w.session
	}
	// cameBack registers w again, after after the expiry of its session
	// expired.
	cameBack := func(w worker, expired string, after time.Duration) {
		next := s.register(t, w, 1, nil).SessionID
		s.exec(t, `UPDATE qinglong.worker_sessions SET created_at_ms = (SELECT updated_at_ms FROM qinglong.worker_sessions WHERE id = $2) + $3
		            WHERE id = $1`, next, expired, after.Milliseconds())
	}
	back := s.newWorker(t, "back", nil, 1)
	cameBack(back, expire(back, 2*time.Minute), 30*time.Second)
	late := s.newWorker(t, "late", nil, 1)
	cameBack(late, expire(late, 10*time.Minute), 5*time.Minute)
	gone := s.newWorker(t, "gone", nil, 1)
	expire(gone, 2*time.Minute)
	fresh := s.newWorker(t, "fresh", nil, 1)
	expire(fresh, 10*time.Second)

	c, err := s.runtime.WorkerStates(t.Context(), time.Hour, testLease, 100)
	if err != nil {
		t.Fatal(err)
	}
	// back and late are live again; back and fresh expired, late and gone
	// lost.
	if want := (WorkerStates{Active: 2, Expired: 2, Lost: 2}); c != want {
		t.Fatalf("worker states %+v; want %+v: back within the grace or not yet past it is expired, not back within it is lost", c, want)
	}
}

// The grace of an expired session is the run lease it was registered
// under, whatever lease the asking replica has: a session registered
// under half a minute and expired two minutes ago is lost whether the
// replica asking runs 1 s or 10 min leases. A session that recorded no
// lease (opened by a replica older than pg-0055) is judged by the asking
// replica's.
func TestAnExpiredSessionsGraceIsTheRunLeaseItWasRegisteredUnder(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	recorded := s.newWorker(t, "recorded", nil, 1)
	older := s.newWorker(t, "older", nil, 1)
	s.exec(t, `UPDATE qinglong.worker_sessions SET state = 'expired', created_at_ms = created_at_ms - 120000, heartbeat_at_ms = heartbeat_at_ms - 120000,
	               lease_expires_at_ms = lease_expires_at_ms - 120000, updated_at_ms = updated_at_ms - 120000 WHERE id = ANY($1)`,
		[]string{recorded.session, older.session})
	s.exec(t, `UPDATE qinglong.worker_sessions SET run_lease_ms = NULL WHERE id = $1`, older.session)
	for _, c := range []struct {
		lease time.Duration
		want  WorkerStates
	}{{MinRunLease, WorkerStates{Lost: 2}}, {MaxRunLease, WorkerStates{Expired: 1, Lost: 1}}} {
		got, err := s.runtime.WorkerStates(t.Context(), time.Hour, c.lease, 100)
		if err != nil || got != c.want {
			t.Errorf("asked by a replica of run lease %s: worker states %+v, %v; want %+v (the session registered under %s lost either way)", c.lease, got, err, c.want, testLease)
		}
	}
}
