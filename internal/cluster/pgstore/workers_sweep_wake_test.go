package pgstore

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The sweep reports, in database time, how long until the earliest retry
// backoff still running ends, so its caller can sweep again then; once no
// backoff runs it reports none.
func TestTheSweepTellsWhenTheEarliestRunningBackoffEnds(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	projectID, _ := s.admitRuns(t, "wake", 1)
	s.setCommand(t, projectID, storedRetry(2, 60_000, "failed"))
	w := s.newWorker(t, "w1", nil, 1)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.NextRequeue != 0 {
		t.Fatalf("sweep with no backoff running: %+v, %v; want no next requeue", res, err)
	}
	l, g := s.started(t, w)
	if reply, err := s.runtime.CompleteAttempt(t.Context(), w.WorkerIdentity, exited(l, 1)); err != nil || reply.RunState != string(run.RetryWait) {
		t.Fatalf("failed completion: %+v, %v; want retry_wait", reply, err)
	}
	res, err := s.runtime.SweepLeases(t.Context(), 10)
	if err != nil || res.Requeued != 0 || res.NextRequeue <= 50*time.Second || res.NextRequeue > 60*time.Second {
		t.Fatalf("sweep inside a 60 s backoff: %+v, %v; want nothing requeued and the next requeue in 50–60 s", res, err)
	}
	if res.Changed() {
		t.Fatalf("sweep inside the backoff reports a change: %+v", res)
	}
	s.exec(t, `UPDATE qinglong.attempts SET available_at_ms = `+ClockMsSQL+` - 1 WHERE run_id = $1 AND number = 2`, g.RunID)
	if res, err := s.runtime.SweepLeases(t.Context(), 10); err != nil || res.Requeued != 1 || res.NextRequeue != 0 {
		t.Fatalf("sweep after the backoff: %+v, %v; want the Run requeued and no backoff left", res, err)
	}
}

// Reading the earliest backoff end costs the sweep one index probe: with
// 5,000 Runs waiting out their backoffs the requeue statement reads a
// handful of attempts rows, never the waiting ones.
func TestTheSweepReadsTheEarliestBackoffWithoutWalkingTheWaitingRuns(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "waiting", 1)
	s.copyRun(t, "waiting", "retry_wait", 5000)
	s.exec(t, `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, available_at_ms, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), r.id, 2, 'remote_worker', 'claimed', `+ClockMsSQL+` + 60000 + (random() * 60000)::bigint,
			r.created_at_ms, r.created_at_ms
		FROM qinglong.runs r WHERE r.idempotency_key LIKE 'waiting-%'`)
	s.exec(t, `ANALYZE`)
	reads, plan := s.explainRequeue(t)
	const budget = 10
	if reads > budget {
		t.Fatalf("the requeue read %d attempts rows (budget %d) with 5,000 Runs waiting; plan:\n%s", reads, budget, plan)
	}
	t.Logf("requeue with 5,000 Runs waiting out their backoffs: %d attempts rows read", reads)
	// Negative control: without the backoff index the same measurement
	// sees every waiting attempt.
	s.exec(t, `DROP INDEX qinglong.attempts_backoff_idx`)
	if naive, _ := s.explainRequeue(t); naive < 5000 {
		t.Fatalf("without the index the requeue read only %d attempts rows; the measurement cannot tell a probe from a walk", naive)
	} else {
		t.Logf("without the index: %d attempts rows read", naive)
	}
}

// explainRequeue runs the sweep's requeue statement under EXPLAIN
// (ANALYZE, BUFFERS) as the runtime role, in a transaction it rolls back,
// and returns how many attempts rows its scans read (returned or
// filtered).
func (s *store) explainRequeue(t *testing.T) (attemptReads int, plan string) {
	t.Helper()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	args, err := sweepRequeueParams.args(pgx.StrictNamedArgs{"limit": MaxSweepPage, "event": run.EventQueued})
	if err != nil {
		t.Fatal(err)
	}
	top, out := explainPlan(t, tx, "requeue", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlSweepRequeue, args...)
	top.walk(func(n planNode) {
		if n.Relation == "attempts" && n.NodeType != "ModifyTable" {
			attemptReads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	return attemptReads, string(out)
}
