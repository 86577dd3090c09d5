package pgstore

import (
	"testing"
	"time"
)

// Counting the workers per state reads the live sessions and the sessions
// expired within the window, however many ended, replaced and long-expired
// sessions the table holds: with 6,000 of those beside one live session
// and one expired a minute ago, the statement reads a handful of
// worker_sessions rows, and counts one active and one expired.
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
	s.exec(t, `UPDATE qinglong.worker_sessions SET state = 'expired', updated_at_ms = updated_at_ms - 60000,
	               created_at_ms = created_at_ms - 60000, heartbeat_at_ms = heartbeat_at_ms - 60000, lease_expires_at_ms = lease_expires_at_ms - 60000
	            WHERE id = $1`, gone.session)
	s.exec(t, `ANALYZE`)
	const limit = 100
	window := time.Hour
	top, plan := explainPlan(t, s.super, "worker states", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlMonitorWorkerStates, window.Milliseconds(), limit)
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
	c, err := s.runtime.WorkerStates(t.Context(), window, limit)
	if err != nil || c != (WorkerStates{Active: 1, Expired: 1}) {
		t.Fatalf("worker states %+v, %v; want one active and one expired", c, err)
	}
}
