package pgstore

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestTheMonitorReadsTheBacklogFromABoundedRangeOfTheClaimIndex: on the
// claim's adversarial layout (held claims in front, 2,000 rows due at one
// instant, 17,000 in the future), the backlog counts the due rows no claim
// holds, cut at the limit, with the oldest due time; and reading it is one
// range of trigger_schedules_unclaimed_order_idx that stops at the limit,
// whatever the table holds.
func TestTheMonitorReadsTheBacklogFromABoundedRangeOfTheClaimIndex(t *testing.T) {
	t.Parallel()
	l := claimLayout{total: 20_000, dueRows: 2_000, liveClaims: 1_000}
	s := newClaimLayoutStore(t, l)
	var oldest int64
	if err := s.super.QueryRow(t.Context(), `SELECT min(next_fire_at_ms) FROM qinglong.trigger_schedules WHERE claim_owner IS NULL`).Scan(&oldest); err != nil {
		t.Fatal(err)
	}
	all, err := s.runtime.Monitor(t.Context(), schedule.MonitorLimit)
	if err != nil {
		t.Fatal(err)
	}
	if all.Due != l.dueRows || all.OldestDueAtMs == nil || *all.OldestDueAtMs != oldest || all.NowMs < oldest+60_000 {
		t.Fatalf("backlog: %d due, oldest %v at %d; want %d (held claims not counted), the oldest unclaimed at %d, a minute late", all.Due, all.OldestDueAtMs, all.NowMs, l.dueRows, oldest)
	}
	const limit = 500
	cut, err := s.runtime.Monitor(t.Context(), limit)
	if err != nil {
		t.Fatal(err)
	}
	if cut.Due != limit {
		t.Fatalf("backlog with limit %d: %d due", limit, cut.Due)
	}

	conn, err := pgx.Connect(context.Background(), s.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var out []byte
	if err := conn.QueryRow(context.Background(), "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlMonitorBacklog, limit).Scan(&out); err != nil {
		t.Fatalf("explain the backlog read: %v", err)
	}
	var plans []struct {
		Plan horizonScan `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output: %v", err)
	}
	var scan horizonScan
	var walk func(n horizonScan)
	walk = func(n horizonScan) {
		if n.Relation == "trigger_schedules" {
			scan = n
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	if scan.IndexName != "trigger_schedules_unclaimed_order_idx" || scan.ActualRows > limit || scan.RemovedByFilter != 0 {
		t.Fatalf("the backlog read %+v; want at most %d rows of trigger_schedules_unclaimed_order_idx:\n%s", scan, limit, out)
	}
}

// When the longest-waiting queued Runs were queued, backfilled and other,
// is read from the first entry of each half of runs_queued_since_idx:
// with 20,000 finished Runs and 5,000 backfilled ones queued before the
// one other queued Run, each read visits one index entry (no scan of runs,
// no walk past the backlog), and answers its queue time.
func TestTheOldestQueuedRunIsOneProbeOfTheQueuedIndex(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "queue", 1)
	var queuedAt int64
	if err := s.super.QueryRow(t.Context(), `SELECT queued_at_ms FROM qinglong.runs WHERE state = 'queued'`).Scan(&queuedAt); err != nil {
		t.Fatal(err)
	}
	s.copyRun(t, "done", "succeeded", 20_000)
	backfillQueuedAt := queuedAt - 60_000
	s.exec(t, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, backfilled)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
			'backfill-' || g, scheduled_for_ms - g * 60000, 'queued', 2, 2, $1::bigint + g, $1::bigint + g, $1::bigint + g, true
		FROM qinglong.runs, generate_series(0, 4999) g WHERE state = 'queued'`, backfillQueuedAt)
	s.exec(t, `ANALYZE`)
	snap, err := s.runtime.Monitor(t.Context(), schedule.MonitorLimit)
	if err != nil {
		t.Fatal(err)
	}
	if snap.OldestQueuedAtMs == nil || *snap.OldestQueuedAtMs != queuedAt || snap.NowMs < queuedAt {
		t.Fatalf("oldest queued at %v (now %d), want %d, the Run a backfill did not admit", snap.OldestQueuedAtMs, snap.NowMs, queuedAt)
	}
	if snap.OldestBackfillQueuedAtMs == nil || *snap.OldestBackfillQueuedAtMs != backfillQueuedAt {
		t.Fatalf("oldest backfilled queued at %v, want %d", snap.OldestBackfillQueuedAtMs, backfillQueuedAt)
	}
	top, plan := explainPlan(t, s.super, "oldest queued", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlMonitorOldestQueued)
	var scans []planNode
	top.walk(func(n planNode) {
		if n.Relation == "runs" {
			scans = append(scans, n)
		}
	})
	if len(scans) != 2 {
		t.Fatalf("the oldest-queued read scans %+v; want one index probe of runs_queued_since_idx per half:\n%s", scans, plan)
	}
	for _, scan := range scans {
		if scan.IndexName != "runs_queued_since_idx" || scan.ActualRows > 1 || scan.RemovedByFilter != 0 {
			t.Fatalf("the oldest-queued read scans %+v; want one index probe of runs_queued_since_idx reading at most 1 row per half:\n%s", scans, plan)
		}
	}
}
