package sqlitestore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Runs listing whose context ends while it walks a long history stops
// then, not when the walk ends: the driver interrupts a statement only
// within its first step, so a listing whose first Run came at once and
// whose next lay 200,000 Runs further went on to the end, past the
// request's limit and the server's write timeout. Measured against the
// same listing let run to its end: the cancelled one ends within a tenth
// of it (plus the time its first Run took).
func TestARunListingStopsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	const history = 200_000
	e := newEnv(t)
	p := e.projectTB(t, "history")
	tk := e.taskTB(t, p.ID)
	tg := e.triggerTB(t, p.ID, tk, "t")
	// The oldest and the newest Runs wait to be retried, the 200,000
	// between them are queued: a listing of the trigger's Runs waiting to
	// be retried finds the newest at once and walks all the trigger's
	// unfinished Runs for the other (a trigger's finished Runs of a state
	// are a range of their own index; its unfinished ones are not).
	if _, err := e.store.writer.ExecContext(t.Context(), seedTriggerHistorySQL, p.ID, tk.id, tk.revision, tg, tk.executionID, history+1); err != nil {
		t.Fatal(err)
	}
	list := func(ctx context.Context) (time.Duration, []run.Run, error) {
		start := time.Now()
		l, _, err := e.store.RunList(ctx, run.ListParams{TriggerID: tg, State: run.RetryWait, Limit: 10})
		return time.Since(start), l, err
	}
	whole, l, err := list(t.Context())
	if err != nil || len(l) != 2 {
		t.Fatalf("the listing to its end: %d Runs, %v; want the 2 waiting to be retried", len(l), err)
	}
	limit := whole / 10
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	took, l, err := list(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || took > limit+whole/2 {
		t.Fatalf("a listing given %s (of the %s it takes) ended after %s with %d Runs, %v; want it stopped at its deadline", limit, whole, took, len(l), err)
	}
}

// seedTriggerHistorySQL writes Runs 0..n of one trigger (project, task,
// revision, trigger, execution revision, n): the first and the last
// waiting to be retried, the others queued, ids in that order.
const seedTriggerHistorySQL = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?6)
	INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
		idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
	SELECT printf('00000000-0000-7000-8000-%012x', i), ?1, ?2, ?3, ?4, 1, ?5, 'history:' || i, i,
		CASE WHEN i IN (0, ?6) THEN 'retry_wait' ELSE 'queued' END, 3, 3, 0, 0, 1, NULL
	FROM n`
