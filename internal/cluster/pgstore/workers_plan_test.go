package pgstore

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/run"
)

// explainDispatch runs one pull's Dispatch statement for w under EXPLAIN
// (ANALYZE, BUFFERS) as the runtime role, in a transaction it rolls back,
// and returns how many grants it made and how many runs rows its scans
// read (returned or filtered).
func (s *store) explainDispatch(t *testing.T, w worker, maxGrants int) (granted, runReads int, plan string) {
	t.Helper()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	req := w.offer(t, maxGrants)
	args, err := dispatchParams.args(pgx.StrictNamedArgs{
		"session_id": req.SessionID, "worker_id": w.ID, "worker_name": w.Name, "offer_id": req.OfferID,
		"token_sha256": strings.Repeat("a", 64), "max": maxGrants, "lease_ms": 1000, "event": run.EventDispatching,
	})
	if err != nil {
		t.Fatal(err)
	}
	top, out := explainPlan(t, tx, "dispatch", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlDispatch, args...)
	top.walk(func(n planNode) {
		if n.Relation == "runs" && n.NodeType != "ModifyTable" {
			runReads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	return int(top.ActualRows), runReads, string(out)
}

// TestDispatchNeverWalksRunsPlacedElsewhere queues 5,000 Runs placed on
// gpu workers ahead of 10 unplaced ones and has a worker without gpu pull:
// the pull must find the 10 without reading the backlog it cannot run.
func TestDispatchNeverWalksRunsPlacedElsewhere(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	gpuProject, _ := s.admitRuns(t, "gpu", 1)
	s.setCommand(t, gpuProject, map[string]any{"placement": map[string]any{"labels": map[string]string{"gpu": "yes"}}})
	// The backlog: clones of the placed Run, each with its claimed attempt.
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			'backlog-' || g, scheduled_for_ms, 'queued', 2, 2, created_at_ms, queued_at_ms, updated_at_ms
		FROM qinglong.runs, generate_series(1, 5000) g`)
	s.exec(t, `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), r.id, 1, 'remote_worker', 'claimed', r.created_at_ms, r.created_at_ms
		FROM qinglong.runs r WHERE r.idempotency_key LIKE 'backlog-%'`)
	s.admitRuns(t, "plain", 10)
	s.exec(t, `ANALYZE`)
	w := s.newWorker(t, "cpu", nil, 8)
	granted, reads, plan := s.explainDispatch(t, w, 8)
	if granted != 8 {
		t.Fatalf("granted %d, want 8 of the 10 unplaced runs", granted)
	}
	const budget = 100
	if reads > budget {
		t.Fatalf("the pull read %d runs rows (budget %d) with 5,000 runs placed elsewhere queued; plan:\n%s", reads, budget, plan)
	}
	t.Logf("pull of 8 with 5,000 runs placed elsewhere: %d runs rows read", reads)
	// Negative control: without the queued-revision index the same
	// measurement sees the backlog.
	s.exec(t, `DROP INDEX qinglong.runs_queued_revision_idx`)
	if _, naive, _ := s.explainDispatch(t, w, 8); naive <= 5000 {
		t.Fatalf("without the index the pull read only %d runs rows; the measurement cannot tell a flat plan from a walk", naive)
	} else {
		t.Logf("without the index: %d runs rows read", naive)
	}
}

// TestDispatchNeverWalksABackfillBacklog queues 5,000 backfilled Runs of
// the same task revision beside 10 clock Runs: the pull must take the 10
// first without reading the backlog, which runs_queued_revision_idx
// orders after them.
func TestDispatchNeverWalksABackfillBacklog(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "plain", 10)
	// The backlog: backfilled clones of one Run, each with its claimed
	// attempt. Random ids put half of them before the clock's Runs.
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, backfilled)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			'backlog-' || g, scheduled_for_ms, 'queued', 2, 2, created_at_ms, queued_at_ms, updated_at_ms, true
		FROM (SELECT * FROM qinglong.runs LIMIT 1) r, generate_series(1, 5000) g`)
	s.exec(t, `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), r.id, 1, 'remote_worker', 'claimed', r.created_at_ms, r.created_at_ms
		FROM qinglong.runs r WHERE r.backfilled`)
	s.exec(t, `ANALYZE`)
	// Room for two pulls of 8: the control below pulls after the real one.
	w := s.newWorker(t, "cpu", nil, 16)
	granted, reads, plan := s.explainDispatch(t, w, 8)
	if granted != 8 {
		t.Fatalf("granted %d, want 8", granted)
	}
	const budget = 100
	if reads > budget {
		t.Fatalf("the pull read %d runs rows (budget %d) with 5,000 backfilled runs queued; plan:\n%s", reads, budget, plan)
	}
	t.Logf("pull of 8 beside 5,000 backfilled runs: %d runs rows read", reads)
	var backfilled int
	_, grants := s.pull(t, w, 8)
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.runs WHERE id = ANY($1::uuid[]) AND backfilled`,
		slices.Collect(maps.Keys(runIDs(grants)))).Scan(&backfilled); err != nil {
		t.Fatal(err)
	}
	if len(grants) != 8 || backfilled != 0 {
		t.Fatalf("a pull of 8 was granted %d Runs, %d of them backfilled; want 8 of the 10 clock Runs", len(grants), backfilled)
	}
	// Negative control: with the index in admission order alone the same
	// measurement sees the backlog.
	s.exec(t, `DROP INDEX qinglong.runs_queued_revision_idx`)
	s.exec(t, `CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, id) WHERE state = 'queued'`)
	if _, naive, _ := s.explainDispatch(t, w, 8); naive <= 5000 {
		t.Fatalf("with the index in admission order the pull read only %d runs rows; the measurement cannot tell a flat plan from a walk", naive)
	} else {
		t.Logf("with the index in admission order: %d runs rows read", naive)
	}
}
