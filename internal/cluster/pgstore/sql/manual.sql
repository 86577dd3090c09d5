-- Manual admission: run now and backfill (manual.go), each one READ
-- COMMITTED transaction of the runtime role.

-- name: ManualTouch
-- Manual admission step 1: write the trigger's schedule row without
-- changing any of its fields, so that (a) this transaction holds the row
-- lock every admission of the trigger takes, and (b) an admission whose
-- REPEATABLE READ snapshot predates this commit fails its FOR UPDATE with
-- a serialization error and re-reads, seeing this transaction's Runs. Each
-- later statement of this READ COMMITTED transaction sees every Run
-- committed before the lock was granted. Returns the locked row version.
UPDATE qinglong.trigger_schedules SET state_version = state_version WHERE trigger_id = $1 RETURNING ctid

-- name: RunByKey
-- The Run holding an idempotency key in a project, if any: an admission
-- whose occurrence may have its Run since the clock went back (commit.go,
-- passAdmittedBefore).
SELECT id FROM qinglong.runs WHERE project_id = $1 AND idempotency_key = $2

-- name: ManualReplay
-- The Run a manual request's idempotency key names in a project, if any,
-- with the force its request asked (recorded in its run.created event,
-- seq 1): a request asked again finds what it made before the trigger is
-- verified (manual.go, replay).
SELECT r.id, coalesce((e.payload->>'force')::boolean, false)
  FROM qinglong.runs r
  LEFT JOIN qinglong.run_events e ON e.run_id = r.id AND e.seq = 1 AND e.name = 'run.created'
 WHERE r.project_id = $1 AND r.idempotency_key = $2

-- name: ManualReplayAnyProject
-- ManualReplay in whichever project holds the key: a re-run asked again
-- after retention deleted its original, which alone named the project
-- (manual.go, replayAnyProject). One probe of runs_idempotency_key per
-- project, as the key's unique index leads with the project.
SELECT r.id, coalesce((e.payload->>'force')::boolean, false)
  FROM qinglong.projects p
  JOIN qinglong.runs r ON r.project_id = p.id AND r.idempotency_key = $1
  LEFT JOIN qinglong.run_events e ON e.run_id = r.id AND e.seq = 1 AND e.name = 'run.created'

-- name: RerunSource
-- What a re-run repeats: a Run's trigger, state, scheduled time and pinned
-- revisions, with the content digests of the task and trigger revisions
-- it pinned and the execution revision it ran (NULL columns when that is
-- missing: the re-run fails closed).
SELECT r.trigger_id, r.state, r.scheduled_for_ms, r.task_id, r.task_revision, r.trigger_revision, tkr.content_digest, tr.content_digest,
       er.id, er.project_id, er.task_content_digest, er.executor, er.command, er.digest
  FROM qinglong.runs r
  JOIN qinglong.task_revisions tkr ON tkr.task_id = r.task_id AND tkr.revision = r.task_revision
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision
  LEFT JOIN qinglong.execution_revisions er
         ON er.task_id = r.task_id AND er.task_revision = r.task_revision AND er.id = r.execution_revision_id AND er.executor = 'remote_worker'
 WHERE r.id = $1

-- name: RunsCronScheduledIn
-- The scheduled times of a trigger's clock-admitted Runs (any revision) in
-- a window, with their ids, so a backfill never admits an occurrence twice
-- under another revision's key and names the Run it has. Reads the
-- trigger's Runs through runs_trigger_listing_idx.
SELECT scheduled_for_ms, id FROM qinglong.runs
 WHERE trigger_id = $1 AND scheduled_for_ms BETWEEN $2 AND $3 AND idempotency_key LIKE 'ql3:cron:v1:%'

-- name: ManualInsert
-- One manual Run, as an admission writes one: queued at version 2 with
-- Attempt 1 claimed and events 1–2, all or nothing, in database time. The
-- unique (project_id, idempotency_key) makes a repeat insert nothing: the
-- counts say so (0 runs). rerun_of: the finished Run a re-run repeats,
-- NULL otherwise. backfilled: a backfill admits it, so Dispatch grants it
-- after every other queued Run (pg-0039). replaces: the newest Run a
-- cancel_previous admission cancelled for it, whose place in the dispatch
-- order it takes unless that one is a backfill's (pg-0042); NULL otherwise.
WITH run AS (
    INSERT INTO qinglong.runs
           (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
            scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, waits_for_previous, rerun_of,
            backfilled, place_of)
    VALUES (@run_id::uuid, @project_id::uuid, @task_id::uuid, @task_revision::bigint, @trigger_id::uuid, @trigger_revision::bigint,
            @execution_revision_id::text, @idempotency_key::text, @scheduled_for_ms::bigint, @due_at_ms::bigint, 'queued', 2, 2,
            @now_ms::bigint, @now_ms::bigint, @now_ms::bigint, @waits::boolean, @rerun_of::uuid,
            @backfilled::boolean, (SELECT p.id FROM qinglong.runs p WHERE p.id = @replaces::uuid AND NOT p.backfilled))
        ON CONFLICT (project_id, idempotency_key) DO NOTHING
    RETURNING id
),
attempt AS (
    INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
    SELECT @attempt_id::uuid, r.id, 1, @executor::text, 'claimed', @now_ms::bigint, @now_ms::bigint
      FROM run r
    RETURNING 1
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT r.id, e.seq, e.name, e.payload, @now_ms::bigint
      FROM run r,
           (VALUES (1, @created_event::text, @created_payload::jsonb), (2, @queued_event::text, @queued_payload::jsonb)) AS e (seq, name, payload)
    RETURNING 1
)
SELECT (SELECT count(*) FROM run), (SELECT count(*) FROM attempt), (SELECT count(*) FROM events)
