package sqlitestore

import (
	"context"
	"fmt"
	"testing"
)

// seedQueuedSQL copies Run ?1 ?2 times as queued Runs, each with its first
// attempt claimed for the dispatcher, written behind the store's back as
// an admission leaves them. Ids are the random prefixes ?3 (runs) and ?4
// (attempts) followed by a counter, so the copies queue in that order.
const seedQueuedSQL = `
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?2)
INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
	idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
SELECT printf('%s%012x', ?3, n), r.project_id, r.task_id, r.task_revision, r.trigger_id, r.trigger_revision, r.execution_revision_id,
	'queued:' || printf('%s%012x', ?3, n), r.scheduled_for_ms, 'queued', 2, 2, r.created_at_ms, r.queued_at_ms, r.updated_at_ms
FROM i, runs r WHERE r.id = ?1;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?2)
INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms)
SELECT printf('%s%012x', ?4, n), printf('%s%012x', ?3, n), 1, 'local_process', 'claimed', 0 FROM i;`

// seedQueued adds n queued Runs copied from the Run template.
func (e *env) seedQueued(tb testing.TB, template string, n int) {
	tb.Helper()
	ctx := context.Background()
	conn, err := e.raw.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE;"+seedQueuedSQL+"COMMIT;", template, n, idPrefix(), idPrefix()); err != nil {
		_, _ = conn.ExecContext(ctx, "ROLLBACK")
		tb.Fatalf("seed %d queued Runs: %v", n, err)
	}
}

// BenchmarkDispatchRoundBesideACappedBacklog measures one read of the
// dispatcher's queue (AttemptsPending, a round's 16 slots) when a project
// holds 1,000 or 10,000 queued Runs, all older than another project's 3:
// with the project at its maxRunning (1, its one slot taken), the page is
// the other project's 3; with no cap, the page is the first 16 of the
// backlog, the read a round makes however long the queue is.
func BenchmarkDispatchRoundBesideACappedBacklog(b *testing.B) {
	for _, c := range []struct {
		backlog int
		capped  bool
	}{{1_000, false}, {1_000, true}, {10_000, false}, {10_000, true}} {
		capped := c.capped
		b.Run(fmt.Sprintf("backlog=%d/capped=%t", c.backlog, capped), func(b *testing.B) {
			e := newEnv(b)
			bl := prepareBaseline(b, e)
			runaway := e.projectTB(b, "runaway")
			tk := e.taskTB(b, runaway.ID)
			tg := e.triggerTB(b, runaway.ID, tk, "tick")
			bl.insert(b, e, runaway.ID, tk, tg)
			var first, firstAttempt string
			if err := e.raw.QueryRow(`SELECT r.id, a.id FROM runs r JOIN attempts a ON a.run_id = r.id`).Scan(&first, &firstAttempt); err != nil {
				b.Fatal(err)
			}
			e.seedQueued(b, first, c.backlog)
			if _, _, _, err := e.store.AttemptStart(b.Context(), firstAttempt, "owner-1", ""); err != nil {
				b.Fatal(err)
			}
			if capped {
				runaway.MaxRunning = 1
				if _, err := e.store.ProjectSave(b.Context(), runaway); err != nil {
					b.Fatal(err)
				}
			}
			other := e.projectTB(b, "other")
			otk := e.taskTB(b, other.ID)
			otg := e.triggerTB(b, other.ID, otk, "tick")
			for range 3 {
				bl.insert(b, e, other.ID, otk, otg)
			}
			want := 16
			if capped {
				want = 3
			}
			for b.Loop() {
				list, err := e.store.AttemptsPending(b.Context(), 16)
				if err != nil || len(list) != want {
					b.Fatalf("pending %d attempts, %v; want %d", len(list), err, want)
				}
			}
		})
	}
}
