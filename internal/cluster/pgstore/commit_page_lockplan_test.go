package pgstore

import (
	"fmt"
	"strings"
	"testing"
)

// lockPlanTriggers is how many triggers exist while the page lock's reads
// are measured: enough that one pass over a trigger table costs more than
// the planner's guess of a page's lookups (a generic plan assumes 100 ids).
const lockPlanTriggers = 2_000

// pageLockAsOneJoin is the page lock written as one join of the page's ids
// with the eight tables (the database clock's expression for %s): the same
// rows, facts and locks as CommitPageLock, for the negative control.
const pageLockAsOneJoin = `WITH now AS MATERIALIZED (
    SELECT %s AS ms
),
want AS (
    SELECT w.trigger_id, w.ord
      FROM unnest($1::uuid[]) WITH ORDINALITY AS w (trigger_id, ord)
)
SELECT now.ms, s.ctid,
       s.project_id, s.trigger_revision, s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version,
       s.claim_owner, s.claim_token, s.claim_version, s.claim_expires_at_ms, s.updated_at_ms,
       s.paused, s.paused_at_ms, s.resumed_at_ms,
       p.status,
       tg.current_revision, tg.task_id,
       tr.task_id, tr.task_revision, tr.task_content_digest, tr.name, tr.enabled, tr.kind,
       tr.cron_expression, tr.cron_timezone, tr.misfire_policy, tr.content_digest, tr.created_at_ms,
       tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
       tk.current_revision,
       tkr.project_id, tkr.name, tkr.enabled, tkr.labels, tkr.command, tkr.content_digest,
       er.id, er.project_id, er.task_content_digest, er.executor, er.command, er.digest,
       w.ord
  FROM now
 CROSS JOIN want w
  JOIN qinglong.trigger_schedules s ON s.trigger_id = w.trigger_id
  JOIN qinglong.projects p ON p.id = s.project_id
  JOIN qinglong.triggers tg ON tg.id = s.trigger_id
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
  JOIN qinglong.tasks tk ON tk.id = tr.task_id
  JOIN qinglong.task_revisions tkr ON tkr.task_id = tr.task_id AND tkr.revision = tr.task_revision
  LEFT JOIN qinglong.execution_revisions er
         ON er.task_id = tr.task_id AND er.task_revision = tr.task_revision AND er.executor = 'remote_worker'
 ORDER BY s.trigger_id
   FOR UPDATE OF s`

// TestThePageLockReadsOnlyItsOwnRowsHoweverManyTriggersExist: the page
// lock (CommitPageLock) under its cached generic plan, the one the
// admission's pipeline runs, reads a bounded number of rows of each table
// per row of the page, with 2,000 triggers and whether or not the
// definition tables were analyzed: primary-key lookups of the page's
// schedule rows and their definitions, never a pass over a table that grows
// with the installation. The negative control is the lock as it was, one
// join of the page with the eight tables: its generic plan hashes the page
// against every row of a trigger table.
func TestThePageLockReadsOnlyItsOwnRowsHoweverManyTriggersExist(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.buildClaimLayout(t, claimLayout{total: lockPlanTriggers, dueRows: lockPlanTriggers, projects: 10, definitionsUnanalyzed: true})
	var ids []string
	if err := s.super.QueryRow(t.Context(), `SELECT array_agg(trigger_id::text ORDER BY random()) FROM qinglong.trigger_schedules`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			s.exec(t, `ANALYZE`)
		}
		for _, group := range []int{1, 64} {
			reads, _ := s.explainPageLock(t, sqlCommitPageLock, ids[:group])
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
	reads, _ := s.explainPageLock(t, fmt.Sprintf(pageLockAsOneJoin, ClockMsSQL), ids[:1])
	if max(reads["trigger_schedules"], reads["triggers"], reads["trigger_revisions"]) < lockPlanTriggers {
		t.Errorf("the negative control read %v rows for a group of 1, no pass over every trigger, so the test proves nothing", reads)
	}
}

// explainPageLock runs stmt (the page lock or a variant) for ids under
// EXPLAIN ANALYZE as the runtime role with the generic plan the
// admission's pipeline caches, in a transaction it rolls back, and returns
// the rows its scans read by table and the shared buffers it touched.
func (s *store) explainPageLock(t testing.TB, stmt string, ids []string) (map[string]int, int) {
	t.Helper()
	c := s.env.conn(t, RoleRuntime)
	ctx := t.Context()
	for _, q := range []string{"BEGIN ISOLATION LEVEL REPEATABLE READ", sqlGenericPlans, "PREPARE page_lock AS " + stmt} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer c.Exec(ctx, "ROLLBACK") //nolint:errcheck // measurement only
	explain := fmt.Sprintf("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE page_lock(ARRAY['%s']::uuid[])", strings.Join(ids, "','"))
	top, out := explainPlan(t, c, "the page lock", explain)
	if int(top.ActualRows) != len(ids) {
		t.Fatalf("the page lock answered %v rows for %d ids:\n%s", top.ActualRows, len(ids), out)
	}
	reads := map[string]int{}
	top.walk(func(n planNode) {
		if n.Relation != "" {
			// EXPLAIN reports rows and rows filtered out per loop.
			reads[n.Relation] += int((n.ActualRows + n.RemovedByFilter) * n.ActualLoops)
		}
	})
	return reads, top.SharedHit + top.SharedRead
}
