package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// explainGeneric runs statement query, prepared, under EXPLAIN ANALYZE
// with literal arguments args as the runtime role, in a transaction it
// rolls back, with the generic plan forced: the plan the pool's prepared
// statement settles on after its first executions.
func (s *store) explainGeneric(t *testing.T, query, args string) planNode {
	t.Helper()
	return s.explainPrepared(t, "force_generic_plan", query, args)
}

// explainPrepared runs statement query, prepared, under EXPLAIN ANALYZE
// with literal arguments args and plan_cache_mode mode, as the runtime
// role, in a transaction it rolls back.
func (s *store) explainPrepared(t *testing.T, mode, query, args string) planNode {
	t.Helper()
	ctx := context.Background()
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, stmt := range []string{"SET LOCAL plan_cache_mode = " + mode, "PREPARE hot AS " + query} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			t.Fatalf("explain: %v", err)
		}
	}
	var out []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE hot("+args+")").Scan(&out); err != nil {
		t.Fatalf("explain: %v", err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output: %v", err)
	}
	return plans[0].Plan
}

// relationReads is, per relation of plan, the indexes its scans used and
// the rows they returned or filtered out.
func relationReads(plan planNode) (indexes map[string][]string, rows map[string]int) {
	indexes, rows = map[string][]string{}, map[string]int{}
	plan.walk(func(n planNode) {
		if n.Relation == "" || n.NodeType == "ModifyTable" {
			return
		}
		indexes[n.Relation] = append(indexes[n.Relation], n.IndexName)
		rows[n.Relation] += int(n.ActualRows*max(1, n.ActualLoops)) + int(n.RemovedByFilter)
	})
	return indexes, rows
}

// The overview's backlog of a user bound to one project with 3 due
// triggers, beside 20,000 due rows of 100 other projects all due before
// them, counts the 3, and reads 3 schedule rows, each by its key: never
// the claim's due index, past the other projects' rows.
func TestABoundBacklogReadsOnlyItsProjectsScheduleRows(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: 20_000, dueRows: 20_000, projects: 100})
	s.addDueProject(t, 3)
	if b, err := s.runtime.Backlog(t.Context(), 10_000, []string{"own"}); err != nil || b.Due != 3 {
		t.Fatalf("backlog %+v, %v; want the bound project's 3", b, err)
	}
	indexes, rows := relationReads(s.explainGeneric(t, sqlMonitorBacklogInProjects, "10000, ARRAY['own']"))
	if !slices.Equal(indexes["trigger_schedules"], []string{"trigger_schedules_pkey"}) || rows["trigger_schedules"] != 3 {
		t.Fatalf("the bound backlog read %d schedule rows through %v; want its 3, by key", rows["trigger_schedules"], indexes["trigger_schedules"])
	}
}

// A page of the audit listing, with 50,000 records in each table, every
// millisecond holding one of each, reads each table backwards along its
// time index, at most a page of each, the first page and a page after a
// cursor alike; and paging through the whole trail gives every record
// once, in the listing's order, ties of one millisecond across the tables
// included.
func TestAnAuditPageReadsEachTableAlongItsTimeIndex(t *testing.T) {
	t.Parallel()
	const n = 50_000
	s := newStore(t)
	s.addDueProject(t, 1)
	s.seedAuditTied(t, n)
	var cursorMs int64
	var cursorKey string
	if err := s.super.QueryRow(t.Context(), `SELECT at_ms, 'a' || id FROM qinglong.audit_log ORDER BY at_ms DESC LIMIT 1 OFFSET 2000`).Scan(&cursorMs, &cursorKey); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]string{
		"first page":        "0, '', '', '', NULL, NULL, NULL, 101",
		"page after cursor": fmt.Sprintf("0, '', '', '', %d, '%s', NULL, 101", cursorMs, cursorKey),
	} {
		indexes, rows := relationReads(s.explainGeneric(t, sqlAuditList, args))
		if !slices.Equal(indexes["audit_log"], []string{"audit_log_at_idx"}) || rows["audit_log"] > 101 ||
			!slices.Equal(indexes["trigger_schedule_audit"], []string{"trigger_schedule_audit_at_idx"}) || rows["trigger_schedule_audit"] > 101 {
			t.Fatalf("%s read audit_log %d rows through %v, trigger_schedule_audit %d through %v; want at most a page of each along its time index",
				name, rows["audit_log"], indexes["audit_log"], rows["trigger_schedule_audit"], indexes["trigger_schedule_audit"])
		}
	}
	var want []string
	rs, err := s.super.Query(t.Context(), `SELECT key FROM (
		SELECT 'a' || id::text AS key, at_ms FROM qinglong.audit_log
		UNION ALL SELECT 't' || id::text, at_ms FROM qinglong.trigger_schedule_audit) r
		ORDER BY at_ms DESC, key COLLATE "C" DESC`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var k string
		if err := rs.Scan(&k); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	rs.Close()
	var got []string
	q := audit.Query{Limit: 97}
	for {
		page, err := s.runtime.AuditList(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			got = append(got, r.Key)
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paging gave %d records; want the %d of both tables in the listing's order", len(got), len(want))
	}
}

// seedAuditTied writes n records into each of the audit trail's tables,
// one of each per millisecond.
func (s *store) seedAuditTied(t testing.TB, n int) {
	t.Helper()
	for _, stmt := range []string{
		fmt.Sprintf(`INSERT INTO qinglong.audit_log (id, at_ms, actor, action, object_kind, object_id, object_name, project, note)
			SELECT gen_random_uuid(), 1000000 + i, 'alice', 'token.created', 'token', 'tok' || i, 'ci', '', ''
			FROM generate_series(1, %d) i`, n),
		fmt.Sprintf(`INSERT INTO qinglong.trigger_schedule_audit (id, trigger_id, action, actor, note, at_ms)
			SELECT gen_random_uuid(), (SELECT id FROM qinglong.triggers WHERE project_id = %s LIMIT 1), 'pause', 'bob', NULL, 1000000 + i
			FROM generate_series(1, %d) i`, ownProjectID, n),
		`ANALYZE`,
	} {
		if _, err := s.super.Exec(context.Background(), stmt); err != nil {
			t.Fatalf("seeding the audit trail: %v\n%s", err, stmt)
		}
	}
}
