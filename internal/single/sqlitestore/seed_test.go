package sqlitestore

import (
	"context"
	"testing"
)

// seedRunsSQL copies Run ?1 ?2 times as Runs in state ?6 at version ?7,
// each with its attempt number ?8 claimed and available at ?9 (NULL: at
// once), written behind the store's back as the step that leaves them so
// does. Ids are the random prefixes ?3 (runs) and ?4 (attempts) followed
// by a counter, so the copies queue in that order; their idempotency keys
// are ?5 and the Run's id.
const seedRunsSQL = `
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?2)
INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
	idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
SELECT printf('%s%012x', ?3, n), r.project_id, r.task_id, r.task_revision, r.trigger_id, r.trigger_revision, r.execution_revision_id,
	?5 || printf('%s%012x', ?3, n), r.scheduled_for_ms, ?6, ?7, ?7, r.created_at_ms, r.queued_at_ms, r.updated_at_ms
FROM i, runs r WHERE r.id = ?1;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?2)
INSERT INTO attempts (id, run_id, number, executor, state, available_at_ms, created_at_ms, project_id)
SELECT printf('%s%012x', ?4, n), printf('%s%012x', ?3, n), ?8, 'local_process', 'claimed', ?9, 0, r.project_id
FROM i, runs r WHERE r.id = ?1;`

// seededRuns is what seedRuns copies a Run as.
type seededRuns struct {
	// what names the copies in a failure.
	what string
	// key prefixes each copy's id into its idempotency key.
	key string
	// state and version are the Run's; attempt is its claimed attempt's
	// number, available at availableAtMs (nil: at once).
	state         string
	version       int
	attempt       int
	availableAtMs any
}

// queuedRuns are Runs an admission left queued, their first attempt
// claimed for the dispatcher.
var queuedRuns = seededRuns{what: "queued Runs", key: "queued:", state: "queued", version: 2, attempt: 1}

// retryWaitingRuns are Runs a failed attempt's retry left waiting out a
// backoff until untilMs, their second attempt claimed.
func retryWaitingRuns(untilMs int64) seededRuns {
	return seededRuns{what: "Runs waiting to retry", key: "wait:", state: "retry_wait", version: 4, attempt: 2, availableAtMs: untilMs}
}

// seedRuns adds n copies of the Run template, as runs says.
func (e *env) seedRuns(tb testing.TB, template string, n int, runs seededRuns) {
	tb.Helper()
	if err := e.seedBehind(context.Background(), seedRunsSQL, template, n, idPrefix(), idPrefix(),
		runs.key, runs.state, runs.version, runs.attempt, runs.availableAtMs); err != nil {
		tb.Fatalf("seed %d %s: %v", n, runs.what, err)
	}
}

// seedBehind runs script, statements writing rows behind the store's back,
// in one write transaction on a connection of its own: rolled back whole
// if one of them fails.
func (e *env) seedBehind(ctx context.Context, script string, args ...any) error {
	conn, err := e.raw.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE;"+script+"COMMIT;", args...); err != nil {
		_, _ = conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	return nil
}
