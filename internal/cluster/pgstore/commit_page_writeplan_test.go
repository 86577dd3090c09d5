package pgstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// writePlanLiveClaims is how many rows other replicas hold claimed, each
// expiring before the measured page's claim.
const writePlanLiveClaims = 2_000

// pageWriteFenceByColumns is the page write's fence as it was, each
// column an equality of its own: the negative control.
const pageWriteFenceByColumns = `     WHERE s.ctid = i.tid
       AND s.trigger_id = i.trigger_id
       AND s.trigger_revision = i.trigger_revision
       AND s.state_version = i.state_version
       AND s.next_fire_at_ms IS NOT DISTINCT FROM i.fence_cursor
       AND s.claim_owner = i.claim_owner
       AND s.claim_token = i.claim_token
       AND s.claim_version = i.claim_version
       AND s.claim_expires_at_ms = i.expires_at_ms
       AND s.updated_at_ms = i.acquired_at_ms
       AND s.claim_expires_at_ms > `

// TestThePageWriteReadsOnlyItsOwnRowsHoweverManyClaimsAreLive: the page
// write (CommitPageWrite) under the cached generic plan the admission's
// pipeline runs reaches each row of its page by ctid, one schedule row
// read per row, while other replicas hold 2,000 live claims that expire
// before the page's. The negative control is the fence as it was, one
// equality per column: its generic plan merges the page with the
// claim-expiry index and reads the other replicas' claims.
func TestThePageWriteReadsOnlyItsOwnRowsHoweverManyClaimsAreLive(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const group = 16
	// The other replicas' rows, analyzed while none was claimed (as after a
	// quiet night), then claimed: the statistics still say the
	// claim-expiry index is empty. No ANALYZE may refresh them meanwhile.
	s.exec(t, `ALTER TABLE qinglong.trigger_schedules SET (autovacuum_enabled = false)`)
	s.buildClaimLayout(t, claimLayout{total: writePlanLiveClaims})
	s.exec(t, `UPDATE qinglong.trigger_schedules
		SET claim_owner = 'other-replica', claim_token = gen_random_uuid(), claim_version = 1, claim_expires_at_ms = `+ClockMsSQL+` + 10000
		WHERE claim_owner IS NULL`)
	var triggerIDs []string
	for i := range group {
		triggerIDs = append(triggerIDs, s.publish(t, fmt.Sprintf("own-%02d", i)).trigger.TriggerID)
	}
	s.initialiseAll(t, s.runtime, group)
	for _, id := range triggerIDs {
		if err := s.makeDue(t.Context(), id, 1_000); err != nil {
			t.Fatal(err)
		}
	}
	page := paramsOf(t, s.takeAll(t, s.runtime))
	if len(page) != group {
		t.Fatalf("took %d rows, want the %d own ones", len(page), group)
	}
	reads := s.explainPageWrite(t, sqlCommitPageWrite, page)
	control := s.explainPageWrite(t, replaceFence(t, sqlCommitPageWrite, pageWriteFenceByColumns), page)
	t.Logf("schedule rows read for a page of %d beside %d live claims: %d, by the control %d", group, writePlanLiveClaims, reads, control)
	if reads != group {
		t.Errorf("the page write read %d schedule rows; want one per row of the page", reads)
	}
	if control < writePlanLiveClaims {
		t.Errorf("the negative control read %d schedule rows, not the %d live claims, so the test proves nothing", control, writePlanLiveClaims)
	}
}

// replaceFence is stmt with its fence (from WHERE to the database clock's
// comparison) replaced by fence.
func replaceFence(t *testing.T, stmt, fence string) string {
	t.Helper()
	start := strings.Index(stmt, "     WHERE s.ctid = i.tid")
	end := strings.Index(stmt, "AND s.claim_expires_at_ms > ")
	if start < 0 || end < start {
		t.Fatal("the page write's fence is not where the control expects it")
	}
	return stmt[:start] + fence + stmt[end+len("AND s.claim_expires_at_ms > "):]
}

// explainPageWrite locks page as the admission does, then runs stmt (the
// page write or a variant) with the page's arguments under EXPLAIN
// ANALYZE, as a prepared statement with the generic plan the pipeline
// caches, rolls the transaction back and returns the schedule rows its
// scans read.
func (s *store) explainPageWrite(t testing.TB, stmt string, page []schedule.CommitParams) int {
	t.Helper()
	ctx := t.Context()
	conn, err := s.runtime.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	facts, err := lockPage(ctx, conn, page, false)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rollback(ctx, conn); err != nil {
			t.Error(err)
		}
	}()
	write := make([]int, len(page))
	for i := range write {
		write[i] = i
	}
	args, err := pageWriteArgs(page, write, facts, map[int]overlapEffect{})
	if err != nil {
		t.Fatal(err)
	}
	// The statement prepared at the protocol level, EXECUTE'd from SQL
	// with its arguments as literals: EXPLAIN of the statement itself
	// would plan it for these values.
	name := fmt.Sprintf("page_write_%d", len(stmt))
	desc, err := conn.Conn().Prepare(ctx, name, stmt)
	if err != nil {
		t.Fatalf("prepare the page write: %v", err)
	}
	if len(desc.ParamOIDs) != len(args) {
		t.Fatalf("the page write takes %d parameters, the page gave %d", len(desc.ParamOIDs), len(args))
	}
	literals := make([]string, len(args))
	for i, arg := range args {
		text, err := conn.Conn().TypeMap().Encode(desc.ParamOIDs[i], pgtype.TextFormatCode, arg, nil)
		if err != nil {
			t.Fatalf("parameter %d: %v", i+1, err)
		}
		literals[i] = "NULL"
		if text != nil {
			literals[i] = "'" + strings.ReplaceAll(string(text), "'", "''") + "'"
		}
	}
	explain := "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE " + name + "(" + strings.Join(literals, ", ") + ")"
	top, out := explainPlan(t, conn, "the page write", explain)
	if int(top.ActualRows) != len(page) {
		t.Fatalf("the page write answered %v rows for a page of %d:\n%s", top.ActualRows, len(page), out)
	}
	reads := 0
	top.walk(func(n planNode) {
		if n.Relation == "trigger_schedules" && n.NodeType != "ModifyTable" {
			reads += int((n.ActualRows + n.RemovedByFilter) * n.ActualLoops)
		}
	})
	return reads
}
