package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// claimLayout is the adversarial schedule table of docs/architecture.md, "Claim": total rows, of
// which dueRows share one fire time and liveClaims are held claims whose
// cursors sort in front of the due rows. The triggers belong to projects
// projects (1 when zero), one task each, in turn. With
// definitionsUnanalyzed only the schedule table has statistics, as on a
// fresh installation: autovacuum never analyzes a table of fewer than 50
// rows, such as the projects or tasks of most installations.
type claimLayout struct {
	total, dueRows, liveClaims int
	projects                   int
	definitionsUnanalyzed      bool
}

// buildClaimLayout fills the env's schedule table with layout l.
func (s *store) buildClaimLayout(t testing.TB, l claimLayout) {
	t.Helper()
	conn, err := s.super.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if err := l.build(t.Context(), conn.Conn()); err != nil {
		t.Fatal(err)
	}
}

// newClaimLayoutStore is newStore on a copy of a database holding layout
// l, built once per server for every test that asks for the same layout:
// a copy costs a fraction of a build (200,000 rows took each test that
// built them tens of seconds on a loaded machine, a copy a few).
func newClaimLayoutStore(t testing.TB, l claimLayout) *store {
	t.Helper()
	db := pgtest.NewPreparedDatabase(t, fmt.Sprintf("pgstore claim layout %+v", l), func(ctx context.Context, url string) error {
		if err := migrateEmpty(ctx, url); err != nil {
			return err
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		return l.build(ctx, conn)
	})
	e := withRoles(t, db)
	return &store{env: e, admin: e.openAdmin(t), runtime: e.openRuntime(t, "replica-a", testLease)}
}

// build fills a migrated database's schedule table with the layout using
// generate_series, as the superuser with FK triggers off (only the
// claim's plan is measured; digests are placeholders nobody verifies
// here).
func (l claimLayout) build(ctx context.Context, conn *pgx.Conn) error {
	projects := max(1, l.projects)
	// Project i's id ends in hex 1 + i, its task's in hex 100001 + i.
	projectID := `('00000000-0000-7000-8000-' || lpad(to_hex(1 + %s), 12, '0'))::uuid`
	taskID := `('00000000-0000-7000-8000-' || lpad(to_hex(1048577 + %s), 12, '0'))::uuid`
	stmts := []string{
		`SET session_replication_role = replica`,
		fmt.Sprintf(`INSERT INTO qinglong.projects SELECT %s, 'bulk' || i, 'active', 0, 0 FROM generate_series(0, %d) i`,
			fmt.Sprintf(projectID, "i"), projects-1),
		fmt.Sprintf(`INSERT INTO qinglong.tasks SELECT %s, %s, 'job', 1, 0, 0 FROM generate_series(0, %d) i`,
			fmt.Sprintf(taskID, "i"), fmt.Sprintf(projectID, "i"), projects-1),
		`INSERT INTO qinglong.task_revisions SELECT id, 1, project_id,
			'qinglong/command@v1', 'job', true, '{}', '{}', 'sha256:' || repeat('a', 64), 'm', 0 FROM qinglong.tasks`,
		fmt.Sprintf(`INSERT INTO qinglong.triggers
			SELECT gen_random_uuid(), %s, %s, 't' || i, 1, 0, 0
			FROM generate_series(1, %d) i`, fmt.Sprintf(projectID, fmt.Sprintf("i %% %d", projects)), fmt.Sprintf(taskID, fmt.Sprintf("i %% %d", projects)), l.total),
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
	}
	if !l.definitionsUnanalyzed {
		stmts = append(stmts, `ANALYZE`)
	}
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("building the claim layout: %w\n%s", err, stmt)
		}
	}
	return nil
}

// claimCost is what one claim read, from EXPLAIN (ANALYZE, BUFFERS).
type claimCost struct {
	Claimed       int
	ScheduleReads int  // schedule rows returned or filtered by scan nodes
	Buffers       int  // shared buffers hit or read by the whole statement
	JIT           bool // the executor compiled the plan's expressions first
	Plan          string
}

// explainClaim runs the claim (limit rows) under EXPLAIN ANALYZE as the
// runtime role inside a transaction it rolls back, so every measurement
// sees the same table. It measures the generic plan, the one ScheduleTake
// runs: a prepared statement under the same plan_cache_mode (EXPLAIN of
// the statement itself would plan it for these parameter values).
func (s *store) explainClaim(t testing.TB, limit int) claimCost {
	t.Helper()
	return s.explainClaimAfter(t, limit, sqlClaimSettings)
}

// explainClaimAfter is explainClaim with the settings statement given in
// place of the one the claim's pipeline runs.
func (s *store) explainClaimAfter(t testing.TB, limit int, settings string) claimCost {
	t.Helper()
	ctx := context.Background()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, stmt := range []string{settings, "PREPARE claim AS " + sqlClaim} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			t.Fatalf("explain claim: %v", err)
		}
	}
	var out []byte
	explain := fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim('bench', %d, 30000, 0)", limit)
	if err := tx.QueryRow(ctx, explain).Scan(&out); err != nil {
		t.Fatalf("explain claim: %v", err)
	}
	var plans []struct {
		Plan planNode        `json:"Plan"`
		JIT  json.RawMessage `json:"JIT"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output: %v", err)
	}
	top := plans[0].Plan
	cost := claimCost{Claimed: int(top.ActualRows), Buffers: top.SharedHit + top.SharedRead, JIT: plans[0].JIT != nil, Plan: string(out)}
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
	IndexName       string     `json:"Index Name"`
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

// explainPlan runs explain, an EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) of
// what (named in failures), and returns its plan with the raw output.
func explainPlan(t testing.TB, q querier, what, explain string, args ...any) (planNode, []byte) {
	t.Helper()
	var out []byte
	if err := q.QueryRow(t.Context(), explain, args...).Scan(&out); err != nil {
		t.Fatalf("explain %s: %v", what, err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain %s: output %v", what, err)
	}
	return plans[0].Plan, out
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
// than a small multiple of that — before the definition tables have
// statistics (a fresh installation, whose few projects and tasks autovacuum
// never analyzes) and after. The same holds on a table of 10,000 rows that
// are all due, the burst of a minute boundary.
func TestClaimCostStaysFlatOnTheAdversarialLayouts(t *testing.T) {
	t.Parallel()
	burst := newStore(t)
	burst.buildClaimLayout(t, claimLayout{total: 10_000, dueRows: 10_000, projects: 10, definitionsUnanalyzed: true})
	burst.requireFlatClaims(t, "10,000 rows all due")
	s := newClaimLayoutStore(t, adversarialLayout)
	s.requireFlatClaims(t, "200,000 rows, definitions without statistics")
	s.exec(t, "ANALYZE")
	s.requireFlatClaims(t, "200,000 rows, every table analyzed")
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

// adversarialLayout is the claim's adversarial layout at 200,000 rows,
// before the definition tables have statistics.
var adversarialLayout = claimLayout{total: 200_000, dueRows: 10_000, liveClaims: 5_000, projects: 10, definitionsUnanalyzed: true}

// requireFlatClaims fails unless claims of 1, 16 and 256 each claim that
// many rows within the read and buffer budgets.
func (s *store) requireFlatClaims(t *testing.T, layout string) {
	t.Helper()
	for _, limit := range []int{1, 16, 256} {
		c := s.explainClaim(t, limit)
		if c.Claimed != limit {
			t.Fatalf("%s: limit %d claimed %d rows", layout, limit, c.Claimed)
		}
		if c.ScheduleReads > claimReadBudget(limit) || c.Buffers > claimBufferBudget(limit) {
			t.Fatalf("%s: claim of %d read %d schedule rows (budget %d) and %d buffers (budget %d); plan:\n%s",
				layout, limit, c.ScheduleReads, claimReadBudget(limit), c.Buffers, claimBufferBudget(limit), c.Plan)
		}
		t.Logf("%s, limit %d: %d schedule rows read, %d buffers", layout, limit, c.ScheduleReads, c.Buffers)
	}
}

// TestClaimIsNeverJITCompiled: on a table large enough for the planner's
// cost estimate of the claim to pass jit_above_cost, PostgreSQL would
// compile the plan's expressions at every execution (tens to hundreds of
// milliseconds, for a claim that executes in a few); the claim's pipeline
// turns JIT off for its transaction.
func TestClaimIsNeverJITCompiled(t *testing.T) {
	t.Parallel()
	s := newClaimLayoutStore(t, adversarialLayout)
	s.exec(t, "ANALYZE")
	if c := s.explainClaim(t, 16); c.JIT {
		t.Fatalf("the claim was JIT-compiled; plan:\n%s", c.Plan)
	}
	// Negative control: under the server's defaults the same claim is
	// compiled, so the measurement can see it — on a server built with JIT.
	// One built without it (no LLVM, as some packaged builds are) never
	// compiles anything, and the guarantee holds there by construction.
	var jitAvailable bool
	if err := s.super.QueryRow(t.Context(), `SELECT pg_jit_available()`).Scan(&jitAvailable); err != nil {
		t.Fatal(err)
	}
	if !jitAvailable {
		t.Logf("this server has no JIT provider: the negative control cannot compile the claim")
		return
	}
	if c := s.explainClaimAfter(t, 16, `SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'on', true)`); !c.JIT {
		t.Fatalf("with JIT on the claim was not compiled: the layout no longer shows what the setting prevents; plan:\n%s", c.Plan)
	}
}
