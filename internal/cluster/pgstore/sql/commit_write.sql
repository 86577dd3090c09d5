-- name: CommitWrite
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
-- The decision's passed-over occurrences go to the occurrence ledger in
-- the same way: selected from the fenced update, numbered on from the
-- trigger's last entry (the row lock held since the lock statement keeps
-- that number stable), and every @ledger_keep-th entry folds the entries
-- older than the newest @ledger_keep into their per-reason totals and
-- deletes them — at most @ledger_keep rows, once per @ledger_keep entries.
-- @cancelled says that cancel_previous cancelled the trigger's unfinished
-- Runs earlier in this transaction. Those cancels and this admission are
-- one step: a fence that no longer holds must not let the pipelined COMMIT
-- keep the cancels without the admission. The statement then fails instead
-- of writing nothing: the last column divides by the number of schedule
-- rows written (plain SQL has no RAISE, and a function for one would be a
-- schema change), and no other division in the statement can fail with
-- division_by_zero (22012). The count is a subquery, never a constant the
-- planner could fold into an error at planning. The server then skips
-- COMMIT and the caller rolls the cancels back.
-- Returns the rows touched: schedule (0 or 1), runs, attempts, events,
-- ledger entries; and the guard (NULL without cancels, else 1).
-- Parameters: the ticket's fence (@trigger_id, @trigger_revision,
-- @state_version, @cursor (NULL allowed), @owner, @token, @claim_version,
-- @expires_at_ms, @acquired_at_ms), @next_cursor and its jitter
-- @next_due_offset_ms (NULL: the row ended), @last_scheduled_at_ms (the
-- admitted occurrence, NULL keeps the row's; greatest ignores a NULL, and
-- the row's last admitted occurrence never moves back, so that a cursor
-- moved back after the clock went back still meets every occurrence
-- admitted while it read later: schedule.LastAdmitted), @tid the ctid the lock statement locked (tuple-level
-- predicate lock only, see handles.go); admission only (all NULL
-- otherwise): @run_id, @project_id, @task_id, @task_revision,
-- @execution_revision_id, @idempotency_key, @scheduled_for_ms, @due_at_ms
-- (its jittered due time),
-- @admitted_at_ms (the lock statement's database time), @attempt_id,
-- @executor, @waits (queue_one: the Run waits for the trigger's unfinished
-- one), @replaces (cancel_previous: the newest Run it cancelled, whose
-- place in the dispatch order the Run takes unless that one is a
-- backfill's, pg-0042; NULL otherwise), and the name and payload of events 1 and 2 (@created_event,
-- @created_payload, @queued_event, @queued_payload); the ledger entries as
-- index-aligned arrays (@ledger_reason, @ledger_first, @ledger_last,
-- @ledger_count, @ledger_at_least; empty for none) and @ledger_keep.
-- The Run is queued at version 2 with last event 2; the unique
-- (project_id, idempotency_key) makes a replay create nothing. Attempt 1 is
-- claimed with every dispatch field NULL (the pristine shape startup
-- recovery recognises).
WITH fenced AS (
    UPDATE qinglong.trigger_schedules s
       SET next_fire_at_ms = @next_cursor,
           due_offset_ms = @next_due_offset_ms,
           last_scheduled_at_ms = greatest(s.last_scheduled_at_ms, @last_scheduled_at_ms),
           state_version = s.state_version + 1,
           claim_owner = NULL,
           claim_token = NULL,
           claim_expires_at_ms = NULL,
           updated_at_ms = greatest(s.updated_at_ms, {{now_ms}})
     WHERE s.ctid = @tid::tid
       AND s.trigger_id = @trigger_id
       AND s.trigger_revision = @trigger_revision
       AND s.state_version = @state_version
       AND s.next_fire_at_ms IS NOT DISTINCT FROM @cursor
       AND s.claim_owner = @owner
       AND s.claim_token = @token
       AND s.claim_version = @claim_version
       AND s.claim_expires_at_ms = @expires_at_ms
       AND s.updated_at_ms = @acquired_at_ms
       AND s.claim_expires_at_ms > {{now_ms}}
    RETURNING s.trigger_id, s.trigger_revision
),
ledger AS (
    INSERT INTO qinglong.occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms,
                                            occurrence_count, at_least, recorded_at_ms)
    SELECT f.trigger_id, b.seq + e.ord, f.trigger_revision, e.reason, e.first_ms, e.last_ms, e.n, e.at_least, {{now_ms}}
      FROM fenced f
     CROSS JOIN LATERAL (SELECT coalesce(max(l.seq), 0) AS seq FROM qinglong.occurrence_ledger l WHERE l.trigger_id = f.trigger_id) b
     CROSS JOIN unnest(@ledger_reason::text[], @ledger_first::bigint[], @ledger_last::bigint[], @ledger_count::bigint[], @ledger_at_least::boolean[])
           WITH ORDINALITY AS e (reason, first_ms, last_ms, n, at_least, ord)
    RETURNING trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count
),
{{LedgerNotifications}}
{{LedgerCompaction}}
run AS (
    INSERT INTO qinglong.runs
           (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
            scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, waits_for_previous, place_of)
    SELECT @run_id::uuid, @project_id, @task_id, @task_revision, f.trigger_id, f.trigger_revision, @execution_revision_id, @idempotency_key,
           @scheduled_for_ms, @due_at_ms, 'queued', 2, 2, @admitted_at_ms, @admitted_at_ms, @admitted_at_ms, coalesce(@waits::boolean, false),
           (SELECT p.id FROM qinglong.runs p WHERE p.id = @replaces::uuid AND NOT p.backfilled)
      FROM fenced f
     WHERE @run_id::uuid IS NOT NULL
    RETURNING id
),
attempt AS (
    INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
    SELECT @attempt_id, r.id, 1, @executor, 'claimed', @admitted_at_ms, @admitted_at_ms
      FROM run r
    RETURNING 1
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT r.id, e.seq, e.name, e.payload, @admitted_at_ms
      FROM run r,
           (VALUES (1, @created_event::text, @created_payload::jsonb), (2, @queued_event::text, @queued_payload::jsonb)) AS e (seq, name, payload)
    RETURNING 1
)
SELECT (SELECT count(*) FROM fenced), (SELECT count(*) FROM run), (SELECT count(*) FROM attempt), (SELECT count(*) FROM events),
       (SELECT count(*) FROM ledger), CASE WHEN @cancelled::boolean THEN 1 / (SELECT count(*) FROM fenced) END
