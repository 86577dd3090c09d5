package pgstore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Per-trigger monitoring costs a few index probes per trigger listed,
// however many Runs the triggers have: with 21,000 finished Runs of three
// triggers (a success every thousandth), each trigger's latest success is
// the end of its newest succeeded Run, and the read touches runs only
// through one probe of runs_trigger_listing_idx (its newest Run) and one
// of runs_trigger_succeeded_idx (its latest success) per trigger, each
// reading at most one entry and filtering none out.
func TestPerTriggerMonitoringProbesEachTriggersRunsOnceThroughItsIndexes(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "watched", 3)
	const history = 7_000
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			'history-' || id || '-' || g, scheduled_for_ms, CASE WHEN g % 1000 = 0 THEN 'succeeded' ELSE 'failed' END, 2, 2,
			created_at_ms, queued_at_ms, updated_at_ms, created_at_ms + g
		FROM qinglong.runs, generate_series(1, $1::int) g`, history)
	s.exec(t, `ANALYZE`)

	snap, err := s.runtime.TriggerActivity(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Eligible != 3 || len(snap.Triggers) != 3 {
		t.Fatalf("per-trigger monitoring: %+v; want the 3 triggers of project watched", snap)
	}
	for _, a := range snap.Triggers {
		var want int64
		if err := s.super.QueryRow(t.Context(), `SELECT r.created_at_ms + $3 FROM qinglong.runs r
			JOIN qinglong.triggers tg ON tg.id = r.trigger_id JOIN qinglong.projects p ON p.id = tg.project_id
			WHERE p.name = $1 AND tg.name = $2 AND r.state = 'queued'`, a.Project, a.Trigger, history).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if a.LastSuccessAtMs == nil || *a.LastSuccessAtMs != want {
			t.Fatalf("%s/%s: last success %v, want %d (the end of its newest succeeded Run)", a.Project, a.Trigger, a.LastSuccessAtMs, want)
		}
	}

	top, plan := explainPlan(t, s.super, "per-trigger monitoring", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlMonitorTriggerActivity, 10, schedule.MonitorLimit)
	probes := map[string]float64{}
	top.walk(func(n planNode) {
		if n.Relation != "runs" {
			return
		}
		if n.ActualRows > 1 || n.RemovedByFilter != 0 {
			t.Errorf("per-trigger monitoring reads runs by %s on %q: %g rows per loop, %g filtered out; want at most 1 and none", n.NodeType, n.IndexName, n.ActualRows, n.RemovedByFilter)
		}
		probes[n.IndexName] += n.ActualLoops
	})
	if len(probes) != 2 || probes["runs_trigger_listing_idx"] != 3 || probes["runs_trigger_succeeded_idx"] != 3 {
		t.Fatalf("per-trigger monitoring probes runs %v; want 3 probes (one per trigger) of runs_trigger_listing_idx and of runs_trigger_succeeded_idx:\n%s", probes, plan)
	}
}
