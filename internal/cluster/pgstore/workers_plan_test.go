package pgstore

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
)

// explainDispatch runs one pull's Dispatch statement for w under EXPLAIN
// (ANALYZE, BUFFERS) as the runtime role, in a transaction it rolls back,
// and returns how many grants it made and how many runs rows its scans
// read (returned or filtered).
func (s *store) explainDispatch(t *testing.T, w worker, maxGrants int, capped ...string) (granted, runReads int, plan string) {
	t.Helper()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	req := w.offer(t, maxGrants)
	args, err := dispatchParams.args(pgx.StrictNamedArgs{
		"session_id": req.SessionID, "worker_id": w.ID, "worker_name": w.Name, "offer_id": req.OfferID,
		"token_sha256": strings.Repeat("a", 64), "max": maxGrants, "lease_ms": 1000, "event": run.EventDispatching,
		"capped": append([]string{}, capped...),
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

// backlogSize is how many Runs a dispatch plan test queues that a pull
// must not walk.
const backlogSize = 5000

// dispatchBacklog is a plan test's backlog: backlogSize clones of one
// queued Run, each with its claimed attempt, keyed backlog-N.
type dispatchBacklog struct {
	// of is the queued Run cloned.
	of string
	// ordered gives the clones ids after every Run admitted so far;
	// otherwise random ones put about half of them before.
	ordered bool
	// backfilled marks the clones backfilled.
	backfilled bool
	// triggerless clones the Run without its trigger: a cancel_previous
	// replacement of the trigger's Run cancels none of them.
	triggerless bool
}

// queueBacklog queues b.
func (s *store) queueBacklog(t *testing.T, b dispatchBacklog) {
	t.Helper()
	var ordered []string
	if b.ordered {
		ordered = make([]string, backlogSize)
		for i := range ordered {
			ordered[i] = ids.New()
		}
	}
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, backfilled)
		SELECT coalesce(($2::uuid[])[g], gen_random_uuid()), r.project_id, r.task_id, r.task_revision,
			CASE WHEN $4 THEN NULL ELSE r.trigger_id END, CASE WHEN $4 THEN NULL ELSE r.trigger_revision END, r.execution_revision_id,
			'backlog-' || g, r.scheduled_for_ms, 'queued', 2, 2, r.created_at_ms, r.queued_at_ms, r.updated_at_ms, $3
		FROM qinglong.runs r, generate_series(1, $5::int) g WHERE r.id = $1`, b.of, ordered, b.backfilled, b.triggerless, backlogSize)
	s.exec(t, `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), r.id, 1, 'remote_worker', 'claimed', r.created_at_ms, r.created_at_ms
		FROM qinglong.runs r WHERE r.idempotency_key LIKE 'backlog-%'`)
}

// pullSkipsTheBacklog checks that a pull of 8 by w is granted 8 Runs
// reading at most 100 runs rows beside the backlog (beside says which),
// and logs how many it read.
func (s *store) pullSkipsTheBacklog(t *testing.T, w worker, beside string) {
	t.Helper()
	granted, reads, plan := s.explainDispatch(t, w, 8)
	if granted != 8 {
		t.Fatalf("granted %d, want 8", granted)
	}
	const budget = 100
	if reads > budget {
		t.Fatalf("the pull read %d runs rows (budget %d) %s; plan:\n%s", reads, budget, beside, plan)
	}
	t.Logf("pull of 8 %s: %d runs rows read", beside, reads)
}

// pullWalksTheBacklogOnce is the negative control: once index (how the
// statements change runs_queued_revision_idx) is in place, the same
// measurement reads the whole backlog, so the budget tells a flat plan
// from a walk.
func (s *store) pullWalksTheBacklogOnce(t *testing.T, w worker, index string, statements ...string) {
	t.Helper()
	for _, stmt := range statements {
		s.exec(t, stmt)
	}
	if _, naive, _ := s.explainDispatch(t, w, 8); naive <= backlogSize {
		t.Fatalf("%s the pull read only %d runs rows; the measurement cannot tell a flat plan from a walk", index, naive)
	} else {
		t.Logf("%s: %d runs rows read", index, naive)
	}
}

// TestDispatchNeverWalksRunsPlacedElsewhere queues 5,000 Runs placed on
// gpu workers ahead of 10 unplaced ones and has a worker without gpu pull:
// the pull must find the 10 without reading the backlog it cannot run.
func TestDispatchNeverWalksRunsPlacedElsewhere(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	gpuProject, placed := s.admitRuns(t, "gpu", 1)
	s.setCommand(t, gpuProject, map[string]any{"placement": map[string]any{"labels": map[string]string{"gpu": "yes"}}})
	s.queueBacklog(t, dispatchBacklog{of: placed["t000"]})
	s.admitRuns(t, "plain", 10)
	s.exec(t, `ANALYZE`)
	w := s.newWorker(t, "cpu", nil, 8)
	s.pullSkipsTheBacklog(t, w, "with 5,000 runs placed elsewhere queued")
	s.pullWalksTheBacklogOnce(t, w, "without the index", `DROP INDEX qinglong.runs_queued_revision_idx`)
}

// TestDispatchNeverWalksABackfillBacklog queues 5,000 backfilled Runs of
// the same task revision beside 10 clock Runs: the pull must take the 10
// first without reading the backlog, which runs_queued_revision_idx
// orders after them.
func TestDispatchNeverWalksABackfillBacklog(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, clock := s.admitRuns(t, "plain", 10)
	// Random ids put half of the backfilled clones before the clock's Runs.
	s.queueBacklog(t, dispatchBacklog{of: clock["t000"], backfilled: true})
	s.exec(t, `ANALYZE`)
	// Room for two pulls of 8: the control below pulls after the real one.
	w := s.newWorker(t, "cpu", nil, 16)
	s.pullSkipsTheBacklog(t, w, "beside 5,000 backfilled runs queued")
	var backfilled int
	_, grants := s.pull(t, w, 8)
	if err := s.super.QueryRow(t.Context(), `SELECT count(*) FROM qinglong.runs WHERE id = ANY($1::uuid[]) AND backfilled`,
		slices.Collect(maps.Keys(runIDs(grants)))).Scan(&backfilled); err != nil {
		t.Fatal(err)
	}
	if len(grants) != 8 || backfilled != 0 {
		t.Fatalf("a pull of 8 was granted %d Runs, %d of them backfilled; want 8 of the 10 clock Runs", len(grants), backfilled)
	}
	s.pullWalksTheBacklogOnce(t, w, "with the index in admission order", `DROP INDEX qinglong.runs_queued_revision_idx`,
		`CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, id) WHERE state = 'queued'`)
}
