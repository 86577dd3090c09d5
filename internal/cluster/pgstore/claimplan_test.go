package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// claimLayout is the adversarial schedule table of docs/architecture.md, "Claim": total rows, of
// which dueRows share one fire time and liveClaims are held claims whose
// cursors sort in front of the due rows.
type claimLayout struct {
	total, dueRows, liveClaims int
}

// buildClaimLayout fills the env's schedule table with generate_series, as
// the superuser with FK triggers off (only the claim's plan is measured;
// digests are placeholders nobody verifies here).
func (s *store) buildClaimLayout(t testing.TB, l claimLayout) {
	t.Helper()
	ctx := context.Background()
	conn, err := s.super.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	stmts := []string{
		`SET session_replication_role = replica`,
		`INSERT INTO qinglong.projects VALUES ('00000000-0000-7000-8000-000000000001', 'bulk', 'active', 0, 0)`,
		`INSERT INTO qinglong.tasks VALUES ('00000000-0000-7000-8000-000000000002', '00000000-0000-7000-8000-000000000001', 'job', 1, 0, 0)`,
		`INSERT INTO qinglong.task_revisions VALUES ('00000000-0000-7000-8000-000000000002', 1, '00000000-0000-7000-8000-000000000001',
			'qinglong/command@v1', 'job', true, '{}', '{}', 'sha256:' || repeat('a', 64), 'm', 0)`,
		fmt.Sprintf(`INSERT INTO qinglong.triggers
			SELECT gen_random_uuid(), '00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002', 't' || i, 1, 0, 0
			FROM generate_series(1, %d) i`, l.total),
		`INSERT INTO qinglong.trigger_revisions
			SELECT id, 1, project_id, task_id, 1, 'sha256:' || repeat('a', 64), 'qinglong/cron@v1', name, true,
			       '* * * * *', 'UTC', 'fire_once', 'sha256:' || repeat('b', 64), 'm', 0
			FROM qinglong.triggers`,
		// Row number decides the role of each row: the first liveClaims
		// are held claims in front, the next dueRows are due at one
		// instant, the rest fire in the future.
		fmt.Sprintf(`WITH now AS (SELECT `+ClockMsSQL+` AS ms),
			numbered AS (SELECT id, project_id, row_number() OVER (ORDER BY id) AS n FROM qinglong.triggers)
			INSERT INTO qinglong.trigger_schedules
			SELECT id, project_id, 1,
			       CASE WHEN n <= %[1]d THEN now.ms - 120000
			            WHEN n <= %[1]d + %[2]d THEN now.ms - 60000
			            ELSE now.ms + 3600000 + n END,
			       NULL, 2,
			       CASE WHEN n <= %[1]d THEN 'other-replica' END,
			       CASE WHEN n <= %[1]d THEN gen_random_uuid() END,
			       CASE WHEN n <= %[1]d THEN 1 ELSE 0 END,
			       CASE WHEN n <= %[1]d THEN now.ms + 3600000 END,
			       now.ms
			FROM numbered, now`, l.liveClaims, l.dueRows),
		`RESET session_replication_role`,
		`VACUUM ANALYZE qinglong.trigger_schedules`,
		`ANALYZE`,
	}
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("building the claim layout: %v\n%s", err, stmt)
		}
	}
}

// claimCost is what one claim read, from EXPLAIN (ANALYZE, BUFFERS).
type claimCost struct {
	Claimed       int
	ScheduleReads int // schedule rows returned or filtered by scan nodes
	Buffers       int // shared buffers hit or read by the whole statement
	Plan          string
}

// explainClaim runs the claim (limit rows) under EXPLAIN ANALYZE as the
// runtime role inside a transaction it rolls back, so every measurement
// sees the same table. It measures the generic plan, the one ScheduleTake
// runs: a prepared statement under the same plan_cache_mode (EXPLAIN of
// the statement itself would plan it for these parameter values).
func (s *store) explainClaim(t testing.TB, limit int) claimCost {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.url(RoleRuntime))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) // measurement only
	for _, stmt := range []string{sqlGenericPlans, "PREPARE claim AS " + sqlClaim} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			t.Fatalf("explain claim: %v", err)
		}
	}
	var out []byte
	explain := fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim('bench', %d, 30000)", limit)
	if err := tx.QueryRow(ctx, explain).Scan(&out); err != nil {
		t.Fatalf("explain claim: %v", err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output: %v", err)
	}
	top := plans[0].Plan
	cost := claimCost{Claimed: int(top.ActualRows), Buffers: top.SharedHit + top.SharedRead, Plan: string(out)}
	top.walk(func(n planNode) {
		if n.Relation == "trigger_schedules" && n.NodeType != "ModifyTable" {
			cost.ScheduleReads += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
		}
	})
	return cost
}

type planNode struct {
	NodeType        string     `json:"Node Type"`
	Relation        string     `json:"Relation Name"`
	ActualRows      float64    `json:"Actual Rows"`
	ActualLoops     float64    `json:"Actual Loops"`
	RemovedByFilter float64    `json:"Rows Removed by Filter"`
	SharedHit       int        `json:"Shared Hit Blocks"`
	SharedRead      int        `json:"Shared Read Blocks"`
	Plans           []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// claimReadBudget is "a few times the claimed rows": each claimed row is
// read by its branch scan and once more by the update; the constant covers
// the empty branches' first probe.
func claimReadBudget(limit int) int { return 4*limit + 8 }

// claimBufferBudget bounds buffers: per claimed row a handful of index and
// heap pages for the schedule and its four eligibility joins, plus a fixed
// cost for descending each index once.
func claimBufferBudget(limit int) int { return 40*limit + 200 }

// TestClaimCostStaysFlatOnTheAdversarialLayouts builds 200,000 schedule rows
// (the 1,000,000-row version is BenchmarkClaimPlan) with 10,000 due rows
// sharing one fire time behind 5,000 live claims, and fails if a claim of
// 16 reads more than a few times 16 schedule rows or touches more buffers
// than a small multiple of that.
func TestClaimCostStaysFlatOnTheAdversarialLayouts(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: 200_000, dueRows: 10_000, liveClaims: 5_000})
	for _, limit := range []int{1, 16, 256} {
		c := s.explainClaim(t, limit)
		if c.Claimed != limit {
			t.Fatalf("limit %d claimed %d rows", limit, c.Claimed)
		}
		if c.ScheduleReads > claimReadBudget(limit) || c.Buffers > claimBufferBudget(limit) {
			t.Fatalf("claim of %d read %d schedule rows (budget %d) and %d buffers (budget %d); plan:\n%s",
				limit, c.ScheduleReads, claimReadBudget(limit), c.Buffers, claimBufferBudget(limit), c.Plan)
		}
		t.Logf("limit %d: %d schedule rows read, %d buffers", limit, c.ScheduleReads, c.Buffers)
	}
	// Negative control: with a single naive index instead, the same
	// measurement must see the cost the budget exists to catch.
	s.exec(t, "DROP INDEX qinglong.trigger_schedules_unclaimed_order_idx")
	s.exec(t, "DROP INDEX qinglong.trigger_schedules_claim_expiry_idx")
	s.exec(t, `CREATE INDEX naive_due_idx ON qinglong.trigger_schedules (next_fire_at_ms NULLS FIRST, claim_expires_at_ms, project_id, trigger_id)`)
	s.exec(t, "ANALYZE qinglong.trigger_schedules")
	if c := s.explainClaim(t, 16); c.ScheduleReads <= claimReadBudget(16) {
		t.Fatalf("with the naive index the claim read only %d schedule rows; the measurement cannot tell a flat plan from a bad one", c.ScheduleReads)
	} else {
		t.Logf("naive index, limit 16: %d schedule rows read, %d buffers", c.ScheduleReads, c.Buffers)
	}
}
