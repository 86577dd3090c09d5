package pgstore

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestTheClaimReportsTheNextDueInstantFromOneIndexProbe: on the adversarial
// layout (due rows sharing one instant behind held claims, the rest in the
// future), the take's horizon is the earliest future cursor of an
// unclaimed row — never a held row, never a row already due — with the
// database clock it was read at, and reading it is one descent of
// trigger_schedules_unclaimed_order_idx returning one row.
func TestTheClaimReportsTheNextDueInstantFromOneIndexProbe(t *testing.T) {
	t.Parallel()
	l := claimLayout{total: 20_000, dueRows: 2_000, liveClaims: 1_000}
	s := newClaimLayoutStore(t, l)
	// The earliest future cursor: the layout puts row n at now+3600000+n.
	var want, before int64
	if err := s.super.QueryRow(t.Context(), `SELECT min(next_fire_at_ms + due_offset_ms), `+ClockMsSQL+`
		FROM qinglong.trigger_schedules WHERE next_fire_at_ms + due_offset_ms > `+ClockMsSQL).Scan(&want, &before); err != nil {
		t.Fatal(err)
	}
	tickets, h, err := s.runtime.ScheduleTakeHorizon(t.Context(), schedule.TakeParams{Limit: 256})
	if err != nil {
		t.Fatal(err)
	}
	if len(tickets) != 256 {
		t.Fatalf("claimed %d rows, want 256", len(tickets))
	}
	if h.NextDueMs == nil || *h.NextDueMs != want {
		t.Fatalf("horizon %v, want the earliest future cursor %d", h.NextDueMs, want)
	}
	if h.NowMs < before || h.NowMs < tickets[0].ObservedAtMs {
		t.Fatalf("horizon clock %d is before the claim (%d) or the test's reading (%d)", h.NowMs, tickets[0].ObservedAtMs, before)
	}

	scan, buffers, plan := explainHorizon(t, s)
	if scan.IndexName != "trigger_schedules_unclaimed_order_idx" || scan.ActualRows != 1 || scan.RemovedByFilter != 0 || buffers > 16 {
		t.Fatalf("the horizon read %+v and %d buffers; want one row from trigger_schedules_unclaimed_order_idx:\n%s", scan, buffers, plan)
	}
}

// TestARowFallingDueWhileTheClaimRunsIsInItsHorizon: the horizon leaves out
// rows that were due before the take's pipeline began (the claim saw them
// and did not take them), but reports a row that fell due while it ran,
// though already due by the horizon's clock: the claim may have read its
// clock before that instant, and a replica woken a little early for a
// boundary would otherwise find neither the boundary's rows nor a horizon,
// and sleep a whole cadence past them.
func TestARowFallingDueWhileTheClaimRunsIsInItsHorizon(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: 100})
	ctx := t.Context()
	// The explicit transaction stands for the take's pipeline: it began
	// before both rows are placed.
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	var began int64
	if err := tx.QueryRow(ctx, `SELECT (extract(epoch FROM transaction_timestamp()) * 1000)::bigint`).Scan(&began); err != nil {
		t.Fatal(err)
	}
	place := `UPDATE qinglong.trigger_schedules SET next_fire_at_ms = $1
		WHERE trigger_id = (SELECT trigger_id FROM qinglong.trigger_schedules ORDER BY trigger_id OFFSET $2 LIMIT 1)`
	s.exec(t, place, began-1000, 0) // due before the take began
	s.exec(t, place, began+1, 1)    // falls due while it runs
	time.Sleep(20 * time.Millisecond)
	var now int64
	var next *int64
	if err := tx.QueryRow(ctx, sqlClaimHorizon).Scan(&now, &next); err != nil {
		t.Fatal(err)
	}
	if next == nil || *next != began+1 {
		t.Fatalf("horizon %v, want the row that fell due while the take ran (%d)", next, began+1)
	}
	if *next >= now {
		t.Fatalf("the horizon's clock %d is not past the row's instant %d: the test did not place it inside the take", now, *next)
	}
}

// horizonScan is the scan node of trigger_schedules in the horizon's plan.
type horizonScan struct {
	NodeType        string        `json:"Node Type"`
	Relation        string        `json:"Relation Name"`
	IndexName       string        `json:"Index Name"`
	ActualRows      float64       `json:"Actual Rows"`
	RemovedByFilter float64       `json:"Rows Removed by Filter"`
	SharedHit       int           `json:"Shared Hit Blocks"`
	SharedRead      int           `json:"Shared Read Blocks"`
	Plans           []horizonScan `json:"Plans"`
}

// explainHorizon runs the horizon read under EXPLAIN ANALYZE as the runtime
// role and returns its scan of trigger_schedules and the statement's
// buffers.
func explainHorizon(t *testing.T, s *store) (horizonScan, int, string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out []byte
	if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlClaimHorizon).Scan(&out); err != nil {
		t.Fatalf("explain horizon: %v", err)
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
	return scan, plans[0].Plan.SharedHit + plans[0].Plan.SharedRead, string(out)
}
