-- Group admission (docs/architecture.md, "Admission"): a page of decisions
-- in one REPEATABLE READ transaction (admission.sql says why not
-- SERIALIZABLE), the same facts, fence and writes as commit_lock.sql and
-- commit_write.sql for every row, in at most three statements whatever the
-- page's size: the lock (with the probe of runs in its round trip when the
-- page is retried after a replay, or after it when an admission's trigger
-- has an overlap policy), then the write with COMMIT in the next round
-- trip.

-- name: CommitPageLock
-- Group admission step 1: lock every schedule row of the page and sample the
-- database clock in the same statement, reading for each row every fact
-- commit_lock.sql reads (that file says why the schedule row's lock alone
-- keeps them true until COMMIT) except the Runs: CommitPageProbe, after it
-- in the same transaction, reads those where a decision needs them.
-- Rows are locked in trigger id order (want is materialized in that order
-- and each row is locked by its own lookup, in the order the rows of want
-- are read), so two pages that share rows take their locks in one order
-- and cannot deadlock on each other. A row missing from the answer is gone
-- (or its definitions are).
-- Why each row of the page is a subquery of its own: the statement runs
-- with a cached generic plan (admission.sql, GenericPlans), and every table
-- it reads grows with the installation (schedule rows, triggers and their
-- revisions one per trigger, tasks and their revisions one per task). A
-- generic plan does not know how many ids the page holds, and written as
-- one join of the page with the eight tables its plan hashed the page
-- against a pass over a whole table wherever that looked cheaper than a
-- lookup per guessed id: at 2,000 triggers, every schedule row or every
-- trigger on each lock, even of one row, and more the larger the
-- installation until the planner switched to lookups.
-- A subquery that locks (FOR UPDATE) is never merged into the query around
-- it, nor is one with an OFFSET, so each is planned for one row: a
-- primary-key lookup of the schedule row, then of its definitions, whatever
-- the statistics say (TestThePageLockReadsOnlyItsOwnRowsHoweverManyTriggersExist).
-- The definitions are three subqueries by what they depend on (the
-- project, the trigger's revision, the task's revision), so rows of a page
-- that share a project or a task revision can share its lookup (the
-- planner caches a subquery's answer by its parameters where it expects
-- repeats): a page of 64 rows of one task reads as many buffers as the
-- one join did at its best.
-- $1 the page's trigger ids; each row answers with its position in them
-- (from 1).
WITH now AS MATERIALIZED (
    SELECT {{now_ms}} AS ms
),
want AS MATERIALIZED (
    SELECT w.trigger_id, w.ord
      FROM unnest($1::uuid[]) WITH ORDINALITY AS w (trigger_id, ord)
     ORDER BY w.trigger_id
)
SELECT now.ms, s.tid,
       s.project_id, s.trigger_revision, s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version,
       s.claim_owner, s.claim_token, s.claim_version, s.claim_expires_at_ms, s.updated_at_ms,
       s.paused, s.paused_at_ms, s.resumed_at_ms,
       p.status,
       t.head_revision, t.head_task_id,
       t.task_id, t.task_revision, t.task_content_digest, t.name, t.enabled, t.kind,
       t.cron_expression, t.cron_timezone, t.misfire_policy, t.content_digest, t.created_at_ms,
       t.jitter_ms, t.start_at_ms, t.end_at_ms, t.catch_up_window_ms, t.overlap_policy,
       k.task_head_revision,
       k.project_id, k.name, k.enabled, k.labels, k.command, k.content_digest,
       k.er_id, k.er_project_id, k.er_task_content_digest, k.er_executor, k.er_command, k.er_digest,
       w.ord
  FROM now
 CROSS JOIN want w
 CROSS JOIN LATERAL (
       SELECT s.ctid AS tid, s.trigger_id, s.project_id, s.trigger_revision, s.next_fire_at_ms, s.last_scheduled_at_ms,
              s.state_version, s.claim_owner, s.claim_token, s.claim_version, s.claim_expires_at_ms, s.updated_at_ms,
              s.paused, s.paused_at_ms, s.resumed_at_ms
         FROM qinglong.trigger_schedules s
        WHERE s.trigger_id = w.trigger_id
          FOR UPDATE OF s
       ) s
 CROSS JOIN LATERAL (
       SELECT p.status
         FROM qinglong.projects p
        WHERE p.id = s.project_id
       OFFSET 0
       ) p
 CROSS JOIN LATERAL (
       SELECT tg.current_revision AS head_revision, tg.task_id AS head_task_id,
              tr.task_id, tr.task_revision, tr.task_content_digest, tr.name, tr.enabled, tr.kind,
              tr.cron_expression, tr.cron_timezone, tr.misfire_policy, tr.content_digest, tr.created_at_ms,
              tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy
         FROM qinglong.triggers tg
         JOIN qinglong.trigger_revisions tr ON tr.trigger_id = tg.id
        WHERE tg.id = s.trigger_id AND tr.revision = s.trigger_revision
       OFFSET 0
       ) t
 CROSS JOIN LATERAL (
       SELECT tk.current_revision AS task_head_revision,
              tkr.project_id, tkr.name, tkr.enabled, tkr.labels, tkr.command, tkr.content_digest,
              er.id AS er_id, er.project_id AS er_project_id, er.task_content_digest AS er_task_content_digest,
              er.executor AS er_executor, er.command AS er_command, er.digest AS er_digest
         FROM qinglong.tasks tk
         JOIN qinglong.task_revisions tkr ON tkr.task_id = tk.id
         LEFT JOIN qinglong.execution_revisions er
                ON er.task_id = tkr.task_id AND er.task_revision = tkr.revision AND er.executor = 'remote_worker'
        WHERE tk.id = t.task_id AND tkr.revision = t.task_revision
       OFFSET 0
       ) k
 ORDER BY w.trigger_id

-- name: CommitPageProbe
-- Group admission step 2, in the same transaction as CommitPageLock, right
-- after it, only where a decision needs it: for each row of the page, whether the
-- occurrence its decision would admit already has its Run (its idempotency
-- key, NULL for a decision that admits nothing, probed under the project of
-- the row as stored), and the trigger's unfinished Runs under an overlap
-- policy (NULL without one) with, under queue_one, the newest of them that
-- has not started, as commit_lock.sql reads them.
-- Why it is a statement of its own: these are the admission's only reads
-- of runs, the one table that grows with every admission, and the right
-- plan depends on its size (hash every Run while there are few, probe
-- runs_idempotency_key and runs_unfinished_trigger_idx once there are
-- many). A plan cached while runs was nearly empty (a fresh installation,
-- the first bursts before any ANALYZE) kept hashing every Run on each page
-- — the lock's round trip took 67 ms for one row at 50,000 Runs, and
-- 2.5 ms with this statement probing the key (BenchmarkPageLock). So this
-- statement alone is planned each time it runs (admission.sql,
-- CustomPlans), from the table's size at that moment, which costs little
-- for two joins by primary key; the lock's eight-way join keeps its cached
-- plan.
-- Why its answer is as good as the lock's own: it reads the snapshot the
-- lock statement was checked against (REPEATABLE READ: one snapshot for the
-- whole transaction, taken by its first statement). Every admission of a
-- trigger writes its schedule row in the same transaction as its Run, and
-- the lock statement locked that row: an admission that committed before
-- the snapshot is visible here (its Run counts), one that committed after
-- it made the lock fail with 40001 (the page is retried from scratch), one
-- still running makes the lock wait and then fail the same way if it
-- commits, and one that starts later waits on the lock until this
-- transaction ends. A probe read in an earlier snapshot — a transaction of
-- its own, or a READ COMMITTED statement before the lock —
-- would miss a Run admitted between its snapshot and the lock's, and a
-- queue_one or skip policy would admit a second Run beside an unfinished
-- one, which no unique key catches. Sent after the lock, it runs only once
-- every row of the page is locked (a failed lock skips it).
-- $1 the page's trigger ids, $2 their idempotency keys, index-aligned;
-- each row answers with its position in them (from 1).
WITH want AS (
    SELECT w.trigger_id, w.idempotency_key, w.ord
      FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS w (trigger_id, idempotency_key, ord)
)
SELECT w.ord,
       EXISTS (SELECT 1 FROM qinglong.runs r WHERE r.project_id = s.project_id AND r.idempotency_key = w.idempotency_key),
       CASE WHEN tr.overlap_policy IS NOT NULL THEN
            ARRAY(SELECT r.id::text FROM qinglong.runs r
                   WHERE r.trigger_id = s.trigger_id AND r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
                   ORDER BY r.id)
       END,
       CASE WHEN tr.overlap_policy = 'queue_one' THEN
            (SELECT r.id::text FROM qinglong.runs r
              WHERE r.trigger_id = s.trigger_id AND r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
                AND r.state IN ('created', 'queued')
                AND NOT EXISTS (SELECT 1 FROM qinglong.attempts a WHERE a.run_id = r.id AND (a.number > 1 OR a.state <> 'claimed'))
              ORDER BY r.id DESC LIMIT 1)
       END
  FROM want w
  JOIN qinglong.trigger_schedules s ON s.trigger_id = w.trigger_id
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision

-- name: CommitPageWrite
-- Group admission step 3, one statement for the page's verified rows
-- (arrays, index-aligned, one element per row): for each row the schedule
-- update carries that row's whole fence — revision, state version, cursor,
-- owner, token, claim version, expiry, acquired time, and the database clock
-- still before the expiry — exactly as commit_write.sql does for one, and
-- RETURNs only the rows whose fence held. The Runs, Attempts and events are
-- inserted only for those (each insert selects from the step before it), so
-- a row whose fence no longer holds writes nothing while the others commit.
-- An occurrence that already has its Run was left out by the caller when
-- CommitPageProbe ran; one it did not probe, or that gained its Run since,
-- fails the unique key and with it the whole statement, after which the
-- server skips the pipelined COMMIT and the caller retries with the probe. The decisions' passed-over
-- occurrences go to the occurrence ledger the same way, only for the rows
-- whose fence held, numbered and compacted as commit_write.sql does for one.
-- A row whose @cancelled element is true had its trigger's unfinished Runs
-- cancelled by cancel_previous earlier in this transaction; if its fence no
-- longer holds, the statement fails (division_by_zero, 22012, from the
-- guard column, as commit_write.sql's guard does for one row) rather than
-- let the pipelined COMMIT keep those cancels without the admission. The
-- caller retries the page, whose verification then reports that row's
-- claim expired and writes the others.
-- Returns, per input row, its position in the arrays (from 1) and the rows
-- touched for it: schedule (0 or 1), runs, attempts, events, ledger
-- entries; and the guard (NULL for a row without cancels, else 1).
-- Each row is reached by the ctid the lock statement locked (@tid: a TID
-- scan per row, whatever the table's size or how many claims are live; the
-- lock held since keeps it the row's current version) and must still carry
-- its trigger id. The fence is compared as one row (IS NOT DISTINCT FROM,
-- the same as equality here: every element of a claimed ticket's fence but
-- the cursor is non-null), so that no fence column is a join key the
-- planner could walk an index by: with each column an equality of its own,
-- the cached generic plan merged the page with the claim-expiry index,
-- reading every live claim of every replica that expires before the
-- page's (a median of 385 and up to 1,152 rows per group of at most 64, 3
-- replicas at 3,000 triggers a second).
-- Parameters: the fences (@trigger_id, @trigger_revision, @state_version,
-- @fence_cursor (NULL elements allowed), @claim_owner, @claim_token,
-- @claim_version, @expires_at_ms, @acquired_at_ms), @next_cursor and its
-- jitter @next_due_offset_ms (NULL: the row ended),
-- @last_scheduled_at_ms (NULL keeps the row's; it never moves back, as
-- commit_write.sql says); admission only (NULL elements for
-- a row that admits nothing): @run_id, @project_id, @task_id,
-- @task_revision, @execution_revision_id, @idempotency_key,
-- @scheduled_for_ms, @due_at_ms (its jittered due time), @attempt_id, @created_payload, @queued_payload,
-- @waits (queue_one: the Run waits for the trigger's unfinished one),
-- @replaces (cancel_previous: the Run whose place it takes, as
-- commit_write.sql says; NULL otherwise),
-- @cancelled (false for a row whose Runs nothing cancelled); and,
-- shared by the page, @admitted_at_ms (the lock statement's database time),
-- @executor and the event names @created_event and @queued_event; the
-- ledger entries of the whole page as index-aligned arrays, each naming its
-- row's position in the arrays above (@ledger_row, @ledger_reason,
-- @ledger_first, @ledger_last, @ledger_count, @ledger_at_least), and
-- @ledger_keep.
WITH input AS (
    SELECT *
      FROM unnest(@tid::tid[], @trigger_id::uuid[], @trigger_revision::bigint[], @state_version::bigint[], @fence_cursor::bigint[],
                  @claim_owner::text[], @claim_token::uuid[], @claim_version::bigint[], @expires_at_ms::bigint[],
                  @acquired_at_ms::bigint[], @next_cursor::bigint[], @next_due_offset_ms::bigint[], @last_scheduled_at_ms::bigint[],
                  @run_id::uuid[], @project_id::uuid[], @task_id::uuid[], @task_revision::bigint[],
                  @execution_revision_id::text[], @idempotency_key::text[], @scheduled_for_ms::bigint[], @due_at_ms::bigint[],
                  @attempt_id::uuid[], @created_payload::jsonb[], @queued_payload::jsonb[], @waits::boolean[], @replaces::uuid[], @cancelled::boolean[])
           WITH ORDINALITY AS i (tid, trigger_id, trigger_revision, state_version, fence_cursor,
                 claim_owner, claim_token, claim_version, expires_at_ms,
                 acquired_at_ms, next_cursor, next_due_offset_ms, last_scheduled_at_ms,
                 run_id, project_id, task_id, task_revision,
                 execution_revision_id, idempotency_key, scheduled_for_ms, due_at_ms,
                 attempt_id, created_payload, queued_payload, waits, replaces, cancelled, ord)
),
fenced AS (
    UPDATE qinglong.trigger_schedules s
       SET next_fire_at_ms = i.next_cursor,
           due_offset_ms = i.next_due_offset_ms,
           last_scheduled_at_ms = greatest(s.last_scheduled_at_ms, i.last_scheduled_at_ms),
           state_version = s.state_version + 1,
           claim_owner = NULL,
           claim_token = NULL,
           claim_expires_at_ms = NULL,
           updated_at_ms = greatest(s.updated_at_ms, {{now_ms}})
      FROM input i
     WHERE s.ctid = i.tid
       AND (s.trigger_id, s.trigger_revision, s.state_version, s.next_fire_at_ms, s.claim_owner, s.claim_token,
            s.claim_version, s.claim_expires_at_ms, s.updated_at_ms)
           IS NOT DISTINCT FROM
           (i.trigger_id, i.trigger_revision, i.state_version, i.fence_cursor, i.claim_owner, i.claim_token,
            i.claim_version, i.expires_at_ms, i.acquired_at_ms)
       AND s.claim_expires_at_ms > {{now_ms}}
    RETURNING s.trigger_id
),
passed AS (
    SELECT *
      FROM unnest(@ledger_row::bigint[], @ledger_reason::text[], @ledger_first::bigint[], @ledger_last::bigint[],
                  @ledger_count::bigint[], @ledger_at_least::boolean[])
           WITH ORDINALITY AS e (row_ord, reason, first_ms, last_ms, n, at_least, ord)
),
ledger AS (
    INSERT INTO qinglong.occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms,
                                            occurrence_count, at_least, recorded_at_ms)
    SELECT i.trigger_id, b.seq + row_number() OVER (PARTITION BY i.trigger_id ORDER BY e.ord), i.trigger_revision,
           e.reason, e.first_ms, e.last_ms, e.n, e.at_least, {{now_ms}}
      FROM fenced f
      JOIN input i ON i.trigger_id = f.trigger_id
      JOIN passed e ON e.row_ord = i.ord
     CROSS JOIN LATERAL (SELECT coalesce(max(l.seq), 0) AS seq FROM qinglong.occurrence_ledger l WHERE l.trigger_id = i.trigger_id) b
    RETURNING trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count
),
{{LedgerNotifications}}
{{LedgerCompaction}}
run AS (
    INSERT INTO qinglong.runs
           (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
            scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, waits_for_previous, place_of)
    SELECT i.run_id, i.project_id, i.task_id, i.task_revision, i.trigger_id, i.trigger_revision, i.execution_revision_id, i.idempotency_key,
           i.scheduled_for_ms, i.due_at_ms, 'queued', 2, 2, @admitted_at_ms::bigint, @admitted_at_ms::bigint, @admitted_at_ms::bigint,
           coalesce(i.waits, false), (SELECT p.id FROM qinglong.runs p WHERE p.id = i.replaces AND NOT p.backfilled)
      FROM fenced f
      JOIN input i ON i.trigger_id = f.trigger_id
     WHERE i.run_id IS NOT NULL
    RETURNING id, trigger_id
),
attempt AS (
    INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
    SELECT i.attempt_id, r.id, 1, @executor::text, 'claimed', @admitted_at_ms::bigint, @admitted_at_ms::bigint
      FROM run r
      JOIN input i ON i.run_id = r.id
    RETURNING run_id
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT r.id, e.seq, e.name, e.payload, @admitted_at_ms::bigint
      FROM run r
      JOIN input i ON i.run_id = r.id
     CROSS JOIN LATERAL (VALUES (1, @created_event::text, i.created_payload), (2, @queued_event::text, i.queued_payload))
           AS e (seq, name, payload)
    RETURNING run_id
)
SELECT i.ord, coalesce(f.n, 0), coalesce(r.n, 0), coalesce(a.n, 0), coalesce(e.n, 0), coalesce(lg.n, 0),
       CASE WHEN i.cancelled THEN 1 / coalesce(f.n, 0) END
  FROM input i
  LEFT JOIN (SELECT trigger_id, count(*) AS n FROM fenced GROUP BY trigger_id) f ON f.trigger_id = i.trigger_id
  LEFT JOIN (SELECT trigger_id, count(*) AS n FROM run GROUP BY trigger_id) r ON r.trigger_id = i.trigger_id
  LEFT JOIN (SELECT run_id, count(*) AS n FROM attempt GROUP BY run_id) a ON a.run_id = i.run_id
  LEFT JOIN (SELECT run_id, count(*) AS n FROM events GROUP BY run_id) e ON e.run_id = i.run_id
  LEFT JOIN (SELECT trigger_id, count(*) AS n FROM ledger GROUP BY trigger_id) lg ON lg.trigger_id = i.trigger_id
