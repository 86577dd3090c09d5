package peers

import (
	"context"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// floorAligned writes, at the boundary, the rows QingLong's admission
// records for n occurrences (each trigger's schedule update, its Run, the
// Run's Attempt and its created and queued events) in the cheapest way the
// schema allows: one statement in one transaction, every row built by the
// server, no claim, no fence, no decision, nothing read back. An admission
// that records those rows, with its fence and decisions on top, cannot be
// expected to beat it, so floor / River bounds from below what such an
// admission can reach against River.
func floorAligned(b *testing.B, srv *pgtest.Srv, n int) {
	eachBoundary(b, srv, n, func(env *clustertest.Env) result {
		boundary := alignOn(b, env)
		meter := newCPUMeter(b, env.Super)
		time.Sleep(time.Until(boundary))
		start := meter.used(b)
		tag, err := env.Super.Exec(context.Background(), floorWrite, run.EventCreated, run.EventQueued)
		if err != nil {
			b.Fatal(err)
		}
		cpu := meter.used(b).since(start)
		if tag.RowsAffected() != int64(2*n) {
			b.Fatalf("the floor wrote %d events, want %d (two per occurrence)", tag.RowsAffected(), 2*n)
		}
		r := runsCommitted(b, env, boundary)
		r.CPU = &cpu
		return r
	})
}

// floorWrite admits every due schedule row at once. The Runs, Attempts and
// events have the columns the baseline of pgstore's BenchmarkAdmit writes
// (the real admission writes a few more, and larger payloads), so the
// floor is, if anything, low; the idempotency key has the shape of
// schedule.IdempotencyKey's. $1 and $2 are the created and queued event
// names.
const floorWrite = `
WITH due AS MATERIALIZED (
    SELECT s.trigger_id, s.project_id, s.trigger_revision, s.next_fire_at_ms AS scheduled,
           tr.task_id, tr.task_revision, er.id AS execution_revision_id,
           gen_random_uuid() AS run_id, ` + pgstore.ClockMsSQL + ` AS now_ms
      FROM qinglong.trigger_schedules s
      JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
      JOIN qinglong.execution_revisions er
        ON er.task_id = tr.task_id AND er.task_revision = tr.task_revision AND er.executor = 'remote_worker'
     WHERE s.next_fire_at_ms <= ` + pgstore.ClockMsSQL + `
),
schedules AS (
    UPDATE qinglong.trigger_schedules s
       SET next_fire_at_ms = d.scheduled + 60000, last_scheduled_at_ms = d.scheduled, state_version = s.state_version + 1
      FROM due d
     WHERE s.trigger_id = d.trigger_id
),
runs AS (
    INSERT INTO qinglong.runs
           (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
            scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
    SELECT run_id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
           'ql3:cron:v1:' || trigger_id || ':' || trigger_revision || ':' || scheduled,
           scheduled, 'queued', 2, 2, now_ms, now_ms, now_ms
      FROM due
),
attempts AS (
    INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
    SELECT gen_random_uuid(), run_id, 1, 'remote_worker', 'claimed', now_ms, now_ms
      FROM due
)
INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
SELECT d.run_id, e.seq, e.name, '{}', d.now_ms
  FROM due d
 CROSS JOIN (VALUES (1, $1::text), (2, $2::text)) AS e (seq, name)`
