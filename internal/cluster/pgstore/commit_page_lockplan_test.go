package pgstore

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// lockPlanTriggers is how many triggers exist while the page lock's reads
// are measured: enough that one pass over a trigger table costs more than
// the planner's guess of a page's lookups (a generic plan assumes 100 ids).
const lockPlanTriggers = 2_000

// TestThePageLockReadsOnlyItsOwnRowsHoweverManyTriggersExist: the page
// lock (CommitPageLock) under its cached generic plan, the one the
// admission's pipeline runs, reads a bounded number of rows of each table
// per row of the page, with 2,000 triggers and whether or not the
// definition tables were analyzed: primary-key lookups of the page's
// schedule rows and their definitions, never a pass over a table that grows
// with the installation. The negative control is the same statement
// without what keeps it per row (the ANY probe of the schedule rows and
// the OFFSET 0 that keeps each row's definitions a subquery of their own),
// which is the lock as it was: its generic plan hashes the page against
// every row of a trigger table.
func TestThePageLockReadsOnlyItsOwnRowsHoweverManyTriggersExist(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: lockPlanTriggers, dueRows: lockPlanTriggers, projects: 10, definitionsUnanalyzed: true})
	var ids []string
	if err := s.super.QueryRow(t.Context(), `SELECT array_agg(trigger_id::text ORDER BY random()) FROM qinglong.trigger_schedules`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	flattened := strings.NewReplacer(" AND s.trigger_id = ANY ($1::uuid[])", "", "OFFSET 0", "").Replace(sqlCommitPageLock)
	if flattened == sqlCommitPageLock {
		t.Fatal("the negative control's statement is the lock itself: the lock no longer has the text it strips")
	}
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			s.exec(t, `ANALYZE`)
		}
		for _, group := range []int{1, 64} {
			reads := s.explainPageLock(t, sqlCommitPageLock, ids[:group])
			for rel, n := range reads {
				// A table of fewer rows than this may be read whole per
				// lookup: the planner rightly prefers that to an index.
				if n > 16*group {
					t.Errorf("analyzed %v, a group of %d: the page lock read %d rows of %s (%v); want at most %d",
						analyzed, group, n, rel, reads, 16*group)
				}
			}
			if reads["trigger_schedules"] != group {
				t.Errorf("analyzed %v, a group of %d: the page lock read %d schedule rows; want one each", analyzed, group, reads["trigger_schedules"])
			}
		}
	}
	reads := s.explainPageLock(t, flattened, ids[:1])
	if max(reads["trigger_schedules"], reads["triggers"], reads["trigger_revisions"]) < lockPlanTriggers {
		t.Errorf("the negative control read %v rows for a group of 1, no pass over every trigger, so the test proves nothing", reads)
	}
}

// explainPageLock runs stmt (the page lock or a variant) for ids under
// EXPLAIN ANALYZE as the runtime role with the generic plan the
// admission's pipeline caches, in a transaction it rolls back, and returns
// the rows its scans read by table.
func (s *store) explainPageLock(t *testing.T, stmt string, ids []string) map[string]int {
	t.Helper()
	c := s.env.conn(t, RoleRuntime)
	ctx := t.Context()
	for _, q := range []string{"BEGIN ISOLATION LEVEL REPEATABLE READ", sqlGenericPlans, "PREPARE page_lock AS " + stmt} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer c.Exec(ctx, "ROLLBACK") //nolint:errcheck // measurement only
	var out []byte
	explain := fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE page_lock(ARRAY['%s']::uuid[])", strings.Join(ids, "','"))
	if err := c.QueryRow(ctx, explain).Scan(&out); err != nil {
		t.Fatalf("explain the page lock: %v", err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output: %v", err)
	}
	if top := plans[0].Plan; int(top.ActualRows) != len(ids) {
		t.Fatalf("the page lock answered %v rows for %d ids:\n%s", top.ActualRows, len(ids), out)
	}
	reads := map[string]int{}
	plans[0].Plan.walk(func(n planNode) {
		if n.Relation != "" {
			// EXPLAIN reports rows and rows filtered out per loop.
			reads[n.Relation] += int((n.ActualRows + n.RemovedByFilter) * n.ActualLoops)
		}
	})
	return reads
}
