package pgstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// seedEndedSQL copies an admitted Run $2 times as Runs that ended $5
// (succeeded, or lost) at $3, each with one attempt ended the same way
// holding $4 log bytes (one chunk) and three events, written as the
// superuser.
const seedEndedSQL = `WITH t AS (SELECT * FROM qinglong.runs WHERE id = $1),
new AS (SELECT gen_random_uuid() AS run_id, gen_random_uuid() AS attempt_id FROM generate_series(1, $2)),
r AS (INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
        idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms)
      SELECT n.run_id, t.project_id, t.task_id, t.task_revision, t.trigger_id, t.trigger_revision, t.execution_revision_id,
        'seed:' || n.run_id, $3, $5::text, 4, 3, $3, $3, $3, $3 FROM new n, t),
a AS (INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms, started_at_ms, finished_at_ms, exit_code, log_bytes)
      SELECT attempt_id, run_id, 1, 'remote_worker', $5::text, $3, $3, $3, $3, CASE WHEN $5::text = 'succeeded' THEN 0 END, $4::bigint FROM new),
e AS (INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
      SELECT n.run_id, s.seq, s.name, '{}', $3 FROM new n, (VALUES (1, 'run.created'), (2, 'run.queued'), (3, 'run.' || $5::text)) s (seq, name)),
c AS (INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
      SELECT attempt_id, 0, convert_to(repeat('x', $4::int), 'UTF8'), $3 FROM new WHERE $4::int > 0)
SELECT run_id::text FROM new`

func (s *store) seedFinished(ctx context.Context, template string, n int, finishedAtMs int64, logBytes int) ([]string, error) {
	return s.seedEnded(ctx, run.Succeeded, template, n, finishedAtMs, logBytes)
}

func (s *store) seedLost(ctx context.Context, template string, n int, lostAtMs int64, logBytes int) ([]string, error) {
	return s.seedEnded(ctx, run.Lost, template, n, lostAtMs, logBytes)
}

func (s *store) seedEnded(ctx context.Context, state run.State, template string, n int, endedAtMs int64, logBytes int) ([]string, error) {
	rows, err := s.super.Query(ctx, seedEndedSQL, template, n, endedAtMs, logBytes, string(state))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (s *store) backdate(ctx context.Context, runID string, d time.Duration) error {
	ms := d.Milliseconds()
	if err := s.tamper(ctx, `UPDATE qinglong.runs SET created_at_ms = created_at_ms - $2, queued_at_ms = queued_at_ms - $2,
		updated_at_ms = updated_at_ms - $2, scheduled_for_ms = scheduled_for_ms - $2, due_at_ms = due_at_ms - $2,
		finished_at_ms = finished_at_ms - $2 WHERE id = $1`, runID, ms); err != nil {
		return err
	}
	return s.tamper(ctx, `UPDATE qinglong.attempts SET created_at_ms = created_at_ms - $2, updated_at_ms = updated_at_ms - $2,
		started_at_ms = started_at_ms - $2, finished_at_ms = finished_at_ms - $2 WHERE run_id = $1`, runID, ms)
}

// hasLog: the attempt has chunks, and its log_bytes (if it is still
// stored) count them; bytes without chunks are a log retention removed.
func (s *store) hasLog(ctx context.Context, attemptID string) (bool, error) {
	var chunks int
	var held *int64
	err := s.super.QueryRow(ctx, `SELECT (SELECT count(*) FROM qinglong.run_log_chunks WHERE attempt_id = $1),
		(SELECT log_bytes FROM qinglong.attempts WHERE id = $1)`, attemptID).Scan(&chunks, &held)
	if err != nil {
		return false, err
	}
	if held != nil && *held == 0 && chunks > 0 {
		return false, errors.New("attempt " + attemptID + " holds chunks without log bytes")
	}
	return chunks > 0, nil
}

func (e *env) openMaintenance(t testing.TB) *Maintenance {
	t.Helper()
	m, err := OpenMaintenance(t.Context(), e.url(RoleMaintenance), e.prefix())
	if err != nil {
		t.Fatalf("open maintenance: %v", err)
	}
	t.Cleanup(m.Close)
	return m
}

// previousRetentionOptions is the pacing RetentionOptions replaced:
// batches of four times the Runs, half of the time.
var previousRetentionOptions = retention.Options{BatchSize: 256, Share: 0.5}

// previousRetentionRunsSQL is the runs batch RetentionRuns replaced: the
// same rows, but run under the server's planner, JIT and commit settings,
// and with the log chunks found through a second join of the attempts.
const previousRetentionRunsSQL = `WITH doomed AS (
    SELECT r.id
      FROM qinglong.runs r
     WHERE r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out')
       AND r.finished_at_ms < ` + ClockMsSQL + ` - $1::bigint
       AND NOT (SELECT coalesce(bool_or(a.state IN ('claimed', 'starting', 'running') OR a.lease_expires_at_ms IS NOT NULL), false)
                  FROM qinglong.attempts a WHERE a.run_id = r.id)
     ORDER BY r.finished_at_ms
     LIMIT $2
       FOR UPDATE OF r SKIP LOCKED
),
gone_attempts AS (
    DELETE FROM qinglong.attempts a USING doomed d WHERE a.run_id = d.id
    RETURNING a.id, a.log_bytes
),
gone_chunks AS (
    DELETE FROM qinglong.run_log_chunks c USING doomed d, qinglong.attempts a
     WHERE a.run_id = d.id AND c.attempt_id = a.id
),
gone_events AS (
    DELETE FROM qinglong.run_events e USING doomed d WHERE e.run_id = d.id
    RETURNING 1
),
gone_runs AS (
    DELETE FROM qinglong.runs r USING doomed d WHERE r.id = d.id
    RETURNING 1
)
SELECT (SELECT count(*) FROM gone_runs),
       (SELECT count(*) FROM gone_attempts),
       (SELECT count(*) FROM gone_events),
       (SELECT count(*) FROM gone_attempts WHERE log_bytes > 0),
       (SELECT coalesce(sum(log_bytes), 0)::bigint FROM gone_attempts)`

// previousRetention is the runs rule as it was before RetentionSettings
// and RetentionOptions: the benchmark's baseline, measured in the same run.
type previousRetention struct{ *Maintenance }

func (p previousRetention) RetentionBatch(ctx context.Context, b retention.Batch) (retention.Result, error) {
	if b.Kind != retention.KindRuns {
		return p.Maintenance.RetentionBatch(ctx, b)
	}
	var d retention.Deleted
	err := inTx(ctx, p.pool, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, previousRetentionRunsSQL, b.OlderThan.Milliseconds(), b.Limit).Scan(&d.Runs, &d.Attempts, &d.Events, &d.Logs, &d.LogBytes)
	})
	return retention.Result{Deleted: d, More: d.Runs == int64(b.Limit)}, err
}

// BenchmarkAdmissionUnderRetention: admission rate with retention deleting
// a backlog of old finished Runs vs without, in the same run, under the
// serving batch and pacing and, interleaved, the previous ones
// (QL_BENCH_RETENTION_BACKLOG sizes the backlog).
func BenchmarkAdmissionUnderRetention(b *testing.B) {
	s := newStore(b)
	f := s.fixture()
	f.Retention = s.openMaintenance(b)
	storetest.BenchAdmissionUnderRetention(b, f,
		storetest.RetentionPacing{Name: "paced", Options: RetentionOptions},
		storetest.RetentionPacing{Name: "previous", Options: previousRetentionOptions, Store: previousRetention{f.Retention.(*Maintenance)}})
}

// BenchmarkRetentionEstimate: the dry run over a history of ended Runs
// (QL_BENCH_ESTIMATE_HISTORY sizes it).
func BenchmarkRetentionEstimate(b *testing.B) {
	s := newStore(b)
	f := s.fixture()
	f.Retention = s.openMaintenance(b)
	storetest.BenchRetentionEstimate(b, f)
}
