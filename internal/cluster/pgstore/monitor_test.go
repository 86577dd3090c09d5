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
	s := newStore(t)
	l := claimLayout{total: 20_000, dueRows: 2_000, liveClaims: 1_000}
	s.buildClaimLayout(t, l)
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
