package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// explainRelease releases the first n live claims of the layout under
// EXPLAIN ANALYZE, as the runtime role with the generic plan (the worst a
// cached statement can get), after settings, in a transaction it rolls
// back; it returns how many rows it released and how many schedule rows
// its scans read.
func (s *store) explainRelease(t *testing.T, n int, settings ...string) (released, reads int, plan string) {
	t.Helper()
	ctx := context.Background()
	var ids, owners, tokens []string
	var claimVersions, stateVersions []int64
	rows, err := s.super.Query(ctx, `SELECT trigger_id::text, claim_owner, claim_token::text, claim_version, state_version
		FROM qinglong.trigger_schedules WHERE claim_owner IS NOT NULL ORDER BY trigger_id LIMIT $1`, n)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, owner, token string
		var cv, sv int64
		if err := rows.Scan(&id, &owner, &token, &cv, &sv); err != nil {
			t.Fatal(err)
		}
		ids, owners, tokens = append(ids, id), append(owners, owner), append(tokens, token)
		claimVersions, stateVersions = append(claimVersions, cv), append(stateVersions, sv)
	}
	if rows.Err() != nil || len(ids) != n {
		t.Fatalf("read %d live claims (%v), want %d", len(ids), rows.Err(), n)
	}
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, stmt := range append([]string{"SET LOCAL plan_cache_mode = force_generic_plan", "PREPARE rel AS " + sqlClaimRelease}, settings...) {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			t.Fatalf("explain release: %v", err)
		}
	}
	// EXPLAIN EXECUTE takes no bound parameters: the arrays are literals
	// (uuids, owner names of OwnerPattern's characters and integers need
	// no quoting inside them).
	explain := fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE rel('{%s}', '{%s}', '{%s}', '{%s}', '{%s}')",
		strings.Join(ids, ","), strings.Join(owners, ","), strings.Join(tokens, ","), joinInts(claimVersions), joinInts(stateVersions))
	top, out := explainPlan(t, tx, "release", explain)
	top.walk(func(p planNode) {
		switch {
		case p.NodeType == "ModifyTable":
			released = int(p.ActualRows)
		case p.Relation == "trigger_schedules":
			reads += int(p.ActualRows*p.ActualLoops) + int(p.RemovedByFilter)
		}
	})
	return released, reads, string(out)
}

// TestAReleaseReadsOnlyTheRowsItGivesBack: giving back a page of claims
// reaches each of its rows by primary key, however many schedule rows the
// installation has (50,000 here) — a stop must not scan the table. A
// control with index scans turned off sees the cost the budget catches.
func TestAReleaseReadsOnlyTheRowsItGivesBack(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: 50_000, liveClaims: 256, projects: 10})
	for _, n := range []int{1, 16, 256} {
		released, reads, plan := s.explainRelease(t, n)
		if released != n || reads > claimReadBudget(n) {
			t.Fatalf("release of %d claims released %d and read %d schedule rows (budget %d); plan:\n%s", n, released, reads, claimReadBudget(n), plan)
		}
		t.Logf("release of %d claims: %d schedule rows read", n, reads)
	}
	released, reads, _ := s.explainRelease(t, 16, "SET LOCAL enable_indexscan = off", "SET LOCAL enable_bitmapscan = off")
	if released != 16 || reads <= claimReadBudget(16) {
		t.Fatalf("without index scans the release of 16 released %d and read %d schedule rows; the measurement cannot tell a lookup from a scan", released, reads)
	}
	t.Logf("without index scans: %d schedule rows read", reads)
}

func joinInts(vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ",")
}
