package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The console's recent failures on a history of 200,000 succeeded Runs,
// none of them failed, timed out or lost: the three state listings of 10
// it reads, each of a state with no Run. Reported per Overview.
func BenchmarkRecentFailuresOnALongHistory(b *testing.B) {
	const history = 200_000
	e := newEnv(b)
	p := e.projectTB(b, "bench")
	tk := e.taskTB(b, p.ID)
	tg := e.triggerTB(b, p.ID, tk, "t")
	prepareBaseline(b, e).insert(b, e, p.ID, tk, tg)
	// Copied in SQL, with ids below the template's (older Runs), each
	// finished as succeeded.
	if _, err := e.store.writer.ExecContext(b.Context(), `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
		SELECT printf('00000000-0000-7000-8000-%012x', i), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			'history:' || i, i, 'succeeded', 3, 3, 0, 0, 1, 1
		FROM n, (SELECT * FROM runs LIMIT 1)`, history); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, st := range []run.State{run.Failed, run.TimedOut, run.Lost} {
			list, _, err := e.store.RunList(b.Context(), run.ListParams{State: st, Limit: 10})
			if err != nil || len(list) != 0 {
				b.Fatalf("listing %s: %d Runs, %v", st, len(list), err)
			}
		}
	}
}
