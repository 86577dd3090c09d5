package pgstore

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// staleRetentionStats fills attempts, events and log chunks with rows of a
// few Runs (foreign keys off) and analyzes them: statistics that say each
// Run has thousands of attempts and events, as after a burst of Runs that
// autovacuum has not analyzed yet. Under them the planner prefers
// reading each table whole to looking up a batch's Runs.
var staleRetentionStats = []string{
	`SET session_replication_role = replica`,
	`INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms, finished_at_ms)
	 SELECT gen_random_uuid(), ('00000000-0000-7000-8000-' || lpad(to_hex(r), 12, '0'))::uuid, n, 'remote_worker', 'succeeded', 1, 1, 1
	   FROM generate_series(1, 10) r, generate_series(1, 2000) n`,
	`INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
	 SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(r), 12, '0'))::uuid, n, 'run.created', '{}', 1
	   FROM generate_series(1, 10) r, generate_series(1, 2000) n`,
	`INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
	 SELECT id, 0, '\x78', 1 FROM qinglong.attempts`,
	`RESET session_replication_role`,
	`ANALYZE qinglong.attempts, qinglong.run_events, qinglong.run_log_chunks`,
}

// TestRetentionBatchPlanReadsOnlyItsRunsRows: under RetentionSettings a
// runs batch reaches every attempt, log chunk and event through an index
// on its own Runs, whatever the statistics say, never by reading a whole
// table, so its cost follows the batch and not the backlog.
func TestRetentionBatchPlanReadsOnlyItsRunsRows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	m := s.openMaintenance(t)
	ctx := t.Context()
	for _, stmt := range staleRetentionStats {
		if _, err := s.super.Exec(ctx, stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	text := retentionPlan(t, m.pool, sqlRetentionRuns, int64(1), 64)
	for _, bad := range []string{"Seq Scan", "Hash Join", "Merge Join"} {
		if strings.Contains(text, bad) {
			t.Errorf("the runs batch's plan has a %s:\n%s", bad, text)
		}
	}
	for _, idx := range []string{"runs_finished_idx", "attempts_run_number_key", "run_log_chunks_pkey", "run_events_pkey", "runs_pkey"} {
		if !strings.Contains(text, idx) {
			t.Errorf("the runs batch's plan does not use %s:\n%s", idx, text)
		}
	}
}

// TestRetentionNotificationsPlanReadsOnlyOldEndedRows: under
// RetentionSettings a notifications batch finds its rows through
// notification_outbox_state_idx, one range per ended state up to its
// cutoff, never by reading the whole outbox (which the planner prefers
// without them), so its cost follows the batch and not the rows kept
// (pending or young).
func TestRetentionNotificationsPlanReadsOnlyOldEndedRows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	m := s.openMaintenance(t)
	ctx := t.Context()
	for _, stmt := range []string{
		`SET session_replication_role = replica`,
		`INSERT INTO qinglong.notification_outbox (id, project_id, rule_key, subject, event, channel, payload, state,
		    next_attempt_at_ms, created_at_ms, updated_at_ms, delivered_at_ms)
		 SELECT gen_random_uuid(), gen_random_uuid(), 'sha256:' || repeat('0', 64), 'run:' || n, 'failed', '{}', '{}',
		        (ARRAY['pending', 'delivered', 'dead'])[1 + n % 3], 1, extract(epoch FROM now())::bigint * 1000 - n,
		        extract(epoch FROM now())::bigint * 1000 - n, NULL
		   FROM generate_series(1, 30000) n`,
		`RESET session_replication_role`,
		`ANALYZE qinglong.notification_outbox`,
	} {
		if _, err := s.super.Exec(ctx, stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	text := retentionPlan(t, m.pool, sqlRetentionNotifs, int64(30*24*time.Hour/time.Millisecond), 64)
	if strings.Contains(text, "Seq Scan") {
		t.Errorf("the notifications batch's plan reads the whole outbox:\n%s", text)
	}
	if !strings.Contains(text, "notification_outbox_state_idx") {
		t.Errorf("the notifications batch's plan does not use notification_outbox_state_idx:\n%s", text)
	}
	if !slices.ContainsFunc(strings.Split(text, "\n"), func(l string) bool {
		return strings.Contains(l, "Index Cond:") && strings.Contains(l, "created_at_ms <")
	}) {
		t.Errorf("the notifications batch's cutoff filters every row its scan reads instead of bounding the index range:\n%s", text)
	}
}

// retentionPlan is the plan of a retention batch statement with args, as
// the maintenance pool runs it: after RetentionSettings, in its transaction.
func retentionPlan(t *testing.T, pool *pgxpool.Pool, stmt string, args ...any) string {
	t.Helper()
	ctx := t.Context()
	var plan []string
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlRetentionSettings); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "EXPLAIN "+stmt, args...)
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
