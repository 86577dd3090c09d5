package pgstore

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// benchLockRuns is how many Runs exist while BenchmarkPageLock measures.
const benchLockRuns = 50_000

// BenchmarkPageLock measures what locking a page of admissions costs
// (lockPage's round trip, then ROLLBACK) once 50,000 Runs exist, on a
// connection that first ran it while runs was empty and with no ANALYZE of
// runs since: a fresh installation's first bursts, before autovacuum gets
// to the table. Groups of 1 and of 64 (a full page of 256 commits as four
// groups of 64), each without the probe of runs (probe=false: a page whose
// triggers have no overlap policy) and with it (probe=true: the retry after
// a replay); none of the occurrences has its Run yet. The installation
// grows between sizes from the page's 64 triggers to 1,000 and 10,000
// (the others not due), each size with its trigger tables analyzed, as
// autovacuum would have; each size also reports the buffers and the rows
// one lock reads (EXPLAIN of the same generic plan).
//
//	go test ./internal/cluster/pgstore -run '^$' -bench 'BenchmarkPageLock$' -benchtime 200x
func BenchmarkPageLock(b *testing.B) {
	s := newStore(b)
	ctx := b.Context()
	s.exec(b, `ALTER TABLE qinglong.runs SET (autovacuum_enabled = false)`)
	conn, err := s.runtime.pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	if _, err := lockPage(ctx, conn, nil, true); err != nil {
		b.Fatal(err)
	}
	if err := rollback(ctx, conn); err != nil {
		b.Fatal(err)
	}
	projectID, _ := s.admitRuns(b, "locked", 64)
	s.exec(b, `INSERT INTO qinglong.runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision,
			execution_revision_id, idempotency_key, scheduled_for_ms, state, version, last_event_seq, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), project_id, task_id, task_revision, trigger_id, trigger_revision,
			execution_revision_id, idempotency_key || ':' || g, scheduled_for_ms, state, version, last_event_seq, created_at_ms, updated_at_ms
		  FROM qinglong.runs, generate_series(1, $2::int / 64 - 1) g WHERE project_id = $1`, projectID, benchLockRuns)
	rows, err := s.super.Query(ctx, `SELECT trigger_id, trigger_revision, next_fire_at_ms FROM qinglong.trigger_schedules
		WHERE project_id = $1 ORDER BY trigger_id`, projectID)
	if err != nil {
		b.Fatal(err)
	}
	var page []schedule.CommitParams
	for rows.Next() {
		var p schedule.CommitParams
		if err := rows.Scan(&p.Ticket.TriggerID, &p.Ticket.TriggerRevision, &p.Decision.ScheduledForMs); err != nil {
			b.Fatal(err)
		}
		p.Decision.Action = schedule.Admit
		page = append(page, p)
	}
	if err := rows.Err(); err != nil || len(page) != 64 {
		b.Fatalf("%d rows to lock, %v", len(page), err)
	}
	ids := make([]string, len(page))
	for i, p := range page {
		ids[i] = p.Ticket.TriggerID
	}
	for _, triggers := range []int{64, 1_000, 10_000} {
		s.growTriggers(b, page[0].Ticket.TriggerID, triggers)
		for _, n := range []int{1, 64} {
			for _, probe := range []bool{false, true} {
				b.Run(fmt.Sprintf("triggers=%d/runs=%d/group=%d/probe=%v", triggers, benchLockRuns, n, probe), func(b *testing.B) {
					for b.Loop() {
						facts, err := lockPage(ctx, conn, page[:n], probe)
						if err != nil {
							b.Fatal(err)
						}
						if err := rollback(ctx, conn); err != nil {
							b.Fatal(err)
						}
						for i := range n {
							if f, ok := facts.at(i); !ok || f.occurred {
								b.Fatalf("row %d of %d: found %v, has its Run %v", i, n, ok, f.occurred)
							}
						}
					}
					reads, buffers := s.explainPageLock(b, sqlCommitPageLock, ids[:n])
					rows := 0
					for _, r := range reads {
						rows += r
					}
					b.ReportMetric(float64(buffers), "buffers/lock")
					b.ReportMetric(float64(rows), "rows/lock")
				})
			}
		}
	}
}

// growTriggers adds copies of trigger like's definitions and schedule row
// (not due, unclaimed) until the env holds total triggers, then analyzes
// the trigger tables.
func (s *store) growTriggers(t testing.TB, like string, total int) {
	t.Helper()
	s.exec(t, `WITH n AS (
			SELECT count(*) AS have FROM qinglong.triggers
		), g AS (
			SELECT gen_random_uuid() AS id, 'grown-' || i AS name
			  FROM n, generate_series(n.have + 1, $2::int) i
		), tg AS (
			INSERT INTO qinglong.triggers
			SELECT (jsonb_populate_record(NULL::qinglong.triggers, to_jsonb(t) || jsonb_build_object('id', g.id, 'name', g.name))).*
			  FROM qinglong.triggers t, g WHERE t.id = $1
		), tr AS (
			INSERT INTO qinglong.trigger_revisions
			SELECT (jsonb_populate_record(NULL::qinglong.trigger_revisions, to_jsonb(r) || jsonb_build_object('trigger_id', g.id, 'name', g.name))).*
			  FROM qinglong.trigger_revisions r, g WHERE r.trigger_id = $1
		)
		INSERT INTO qinglong.trigger_schedules
		SELECT (jsonb_populate_record(NULL::qinglong.trigger_schedules, to_jsonb(s) || jsonb_build_object('trigger_id', g.id,
		        'next_fire_at_ms', s.next_fire_at_ms + 3600000, 'claim_owner', NULL, 'claim_token', NULL, 'claim_expires_at_ms', NULL))).*
		  FROM qinglong.trigger_schedules s, g WHERE s.trigger_id = $1`, like, total)
	s.exec(t, `ANALYZE qinglong.triggers, qinglong.trigger_revisions, qinglong.trigger_schedules`)
}
