-- Admission final step (docs/architecture.md, "Admission"), one statement: advance the cursor and
-- clear the claim, guarded by the full fence — revision, state version,
-- cursor, owner, token, claim version, expiry and acquired time — and by the
-- database clock still being before the expiry at this last statement; and,
-- for an admit, write the queued Run, Attempt 1 and events 1–2.
-- Why one statement: the caller pipelines COMMIT right behind it (no round
-- trip of its own), so nothing may depend on a row count checked only
-- afterwards. Each insert therefore selects from the step before it: the
-- Run exists only if the fenced update touched its row, the Attempt and the
-- events only if the Run was inserted. A fence that no longer holds writes
-- nothing at all; any failing insert, constraint or serialization check is
-- an error, after which the server skips the pipelined COMMIT. attempts and
-- run_events carry no foreign key to runs (see the schema), so statement
-- order inside the WITH does not matter to them.
-- Returns the rows touched: schedule (0 or 1), runs, attempts, events.
-- $1 trigger, $2 revision, $3 state version, $4 cursor (NULL allowed),
-- $5 owner, $6 token, $7 claim version, $8 expiry, $9 acquired,
-- $10 new cursor, $11 last scheduled (NULL keeps it), $12 the ctid the
-- lock statement locked (tuple-level predicate lock only, see handles.go);
-- admission only (all NULL otherwise): $13 run id, $14 project, $15 task,
-- $16 task revision, $17 execution revision id, $18 idempotency key,
-- $19 scheduled for, $20 the lock statement's database time, $21 attempt id,
-- $22 executor, $23/$24 and $25/$26 name and payload of events 1 and 2.
-- The Run is queued at version 2 with last event 2; the unique
-- (project_id, idempotency_key) makes a replay create nothing. Attempt 1 is
-- claimed with every dispatch field NULL (the pristine shape startup
-- recovery recognises).
WITH fenced AS (
    UPDATE qinglong.trigger_schedules s
       SET next_fire_at_ms = $10,
           last_scheduled_at_ms = coalesce($11, s.last_scheduled_at_ms),
           state_version = s.state_version + 1,
           claim_owner = NULL,
           claim_token = NULL,
           claim_expires_at_ms = NULL,
           updated_at_ms = greatest(s.updated_at_ms, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
     WHERE s.ctid = $12::tid
       AND s.trigger_id = $1
       AND s.trigger_revision = $2
       AND s.state_version = $3
       AND s.next_fire_at_ms IS NOT DISTINCT FROM $4
       AND s.claim_owner = $5
       AND s.claim_token = $6
       AND s.claim_version = $7
       AND s.claim_expires_at_ms = $8
       AND s.updated_at_ms = $9
       AND s.claim_expires_at_ms > (extract(epoch FROM clock_timestamp()) * 1000)::bigint
    RETURNING s.trigger_id, s.trigger_revision
),
run AS (
    INSERT INTO qinglong.runs
           (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
            scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
    SELECT $13::uuid, $14, $15, $16, f.trigger_id, f.trigger_revision, $17, $18,
           $19, 'queued', 2, 2, $20, $20, $20
      FROM fenced f
     WHERE $13::uuid IS NOT NULL
    RETURNING id
),
attempt AS (
    INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
    SELECT $21, r.id, 1, $22, 'claimed', $20, $20
      FROM run r
    RETURNING 1
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT r.id, e.seq, e.name, e.payload, $20
      FROM run r,
           (VALUES (1, $23::text, $24::jsonb), (2, $25::text, $26::jsonb)) AS e (seq, name, payload)
    RETURNING 1
)
SELECT (SELECT count(*) FROM fenced), (SELECT count(*) FROM run), (SELECT count(*) FROM attempt), (SELECT count(*) FROM events)
