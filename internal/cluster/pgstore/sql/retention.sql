-- Retention (retention.go), as the maintenance role. Every batch is one
-- short transaction that locks what it deletes FOR UPDATE SKIP LOCKED, so
-- passes on several replicas at once take disjoint rows (none deleted
-- twice) and never wait for a row the runtime holds.

-- name: RetentionSettings
-- Settings of one runs or notifications batch's transaction (SET LOCAL:
-- they end with it). A notifications batch's cutoff is computed from the
-- clock, so the planner guesses a third of the outbox matches and, with a
-- LIMIT, prefers reading the table until it has enough: with every row
-- kept (pending or young) that reads the whole outbox every batch.
-- Every step of the batch is keyed by an index on the batch's own few Runs;
-- with a stale estimate (after a burst of Runs, before autovacuum analyzes)
-- the planner would hash-join instead, scanning every attempt, event and
-- log chunk once per batch: CPU and buffer cache taken from admission, and
-- the cost estimate of those scans starts JIT compilation (tenths of a
-- second of CPU) for a batch of milliseconds. So: index lookups in nested
-- loops only, no JIT.
-- synchronous_commit off: the batch does not wait for its commit record to
-- be flushed (the WAL writer flushes it within wal_writer_delay). A crash
-- before that loses only deletions, never a row or a fact: the Runs are
-- still there, still finished and old, and the next pass deletes them
-- again. Admission's transactions keep the server's setting and so full
-- durability; their own flushes carry whatever retention wrote before them.
SELECT pg_catalog.set_config('synchronous_commit', 'off', true),
       pg_catalog.set_config('jit', 'off', true),
       pg_catalog.set_config('enable_seqscan', 'off', true),
       pg_catalog.set_config('enable_hashjoin', 'off', true),
       pg_catalog.set_config('enable_mergejoin', 'off', true)

-- name: RetentionRuns
-- The runs rule: the oldest ended Runs (terminal states and lost, the
-- partial index's own condition) that ended more than $1 ms ago by the
-- database clock (a lost Run when it was found lost), none with an
-- attempt still open or leased (an aggregate subquery, so it runs per
-- candidate through attempts_run_number_key: written as NOT EXISTS the
-- planner may scan every attempt to anti-join), at most $2;
-- then their attempts, the log chunks of those attempts, their events and
-- the Runs themselves, each through its index on the Run or attempt id.
-- Returns runs, attempts, events, logs (attempts whose log was still held:
-- a log the logs rule or the cap removed keeps its log_bytes, and is not
-- counted twice) and log bytes deleted. Every data-modifying part runs to completion whether
-- or not the final SELECT reads it.
WITH doomed AS (
    SELECT r.id
      FROM qinglong.runs r
     WHERE r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
       AND r.finished_at_ms < {{now_ms}} - $1::bigint
       AND NOT (SELECT coalesce(bool_or(a.state IN ('claimed', 'starting', 'running') OR a.lease_expires_at_ms IS NOT NULL), false)
                  FROM qinglong.attempts a WHERE a.run_id = r.id)
     ORDER BY r.finished_at_ms
     LIMIT $2
       FOR UPDATE OF r SKIP LOCKED
),
gone_attempts AS (
    DELETE FROM qinglong.attempts a USING doomed d WHERE a.run_id = d.id
    RETURNING a.id, a.log_bytes
),
gone_chunks AS (
    DELETE FROM qinglong.run_log_chunks c USING gone_attempts g
     WHERE c.attempt_id = g.id
    RETURNING c.attempt_id, c.log_offset
),
gone_events AS (
    DELETE FROM qinglong.run_events e USING doomed d WHERE e.run_id = d.id
    RETURNING 1
),
gone_runs AS (
    DELETE FROM qinglong.runs r USING doomed d WHERE r.id = d.id
    RETURNING 1
)
SELECT (SELECT count(*) FROM gone_runs),
       (SELECT count(*) FROM gone_attempts),
       (SELECT count(*) FROM gone_events),
       (SELECT count(*) FROM gone_chunks WHERE log_offset = 0),
       (SELECT coalesce(sum(g.log_bytes), 0)::bigint FROM gone_attempts g
         WHERE g.id IN (SELECT attempt_id FROM gone_chunks WHERE log_offset = 0))

-- name: RetentionLogsAged
-- The logs rule: ended, unleased attempts of finished or lost Runs (a lost
-- Run's logs go as a finished Run's do; a running command's never) whose
-- log (its first chunk, through run_log_chunks_first_idx) is still held
-- and that ended more than $1 ms ago, oldest log first, at most $2,
-- locked.
SELECT a.id, a.log_bytes
  FROM qinglong.run_log_chunks c
  JOIN qinglong.attempts a ON a.id = c.attempt_id
  JOIN qinglong.runs r ON r.id = a.run_id
 WHERE c.log_offset = 0 AND c.created_at_ms < {{now_ms}} - $1::bigint
   AND a.finished_at_ms < {{now_ms}} - $1::bigint
   AND a.state NOT IN ('claimed', 'starting', 'running') AND a.lease_expires_at_ms IS NULL
   AND r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
 ORDER BY c.created_at_ms
 LIMIT $2
   FOR UPDATE OF a SKIP LOCKED

-- name: RetentionLogsOldest
-- The cap: the same attempts whatever their age, oldest log first, at
-- most $1, locked.
SELECT a.id, a.log_bytes
  FROM qinglong.run_log_chunks c
  JOIN qinglong.attempts a ON a.id = c.attempt_id
  JOIN qinglong.runs r ON r.id = a.run_id
 WHERE c.log_offset = 0 AND a.finished_at_ms IS NOT NULL
   AND a.state NOT IN ('claimed', 'starting', 'running') AND a.lease_expires_at_ms IS NULL
   AND r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
 ORDER BY c.created_at_ms
 LIMIT $1
   FOR UPDATE OF a SKIP LOCKED

-- name: RetentionLogsDelete
-- The log chunks of the attempts in $1 (locked by the statement before).
-- Their log_bytes stays, as on SQLite: how much the log held, and with no
-- first chunk left the record that retention removed it (a reader says so;
-- the cap, which counts first chunks, no longer counts it; no rule picks it
-- again). Returns the attempts whose logs went.
WITH gone AS (
    DELETE FROM qinglong.run_log_chunks c WHERE c.attempt_id = ANY($1::uuid[])
    RETURNING c.attempt_id
)
SELECT count(DISTINCT attempt_id) FROM gone

-- name: RetentionLogBytes
-- The bytes every held log holds, running ones too: one attempt per first
-- chunk.
SELECT coalesce(sum(a.log_bytes), 0)::bigint
  FROM qinglong.run_log_chunks c JOIN qinglong.attempts a ON a.id = c.attempt_id
 WHERE c.log_offset = 0

-- name: RetentionCapLock
-- One cap batch at a time across replicas: the batch reads the total and
-- deletes what is over it, so two at once would both delete the excess.
-- A transaction-scoped advisory lock (key "qlretent"); a batch that does not get it does
-- nothing (another is doing the work).
SELECT pg_catalog.pg_try_advisory_xact_lock(8173033203840675444)

-- name: RetentionNotifications
-- The notifications rule: delivered and dead notifications created more
-- than $1 ms ago by the database clock, at most $2, through
-- notification_outbox_state_idx (one range per state, under
-- RetentionSettings; the cutoff is a subquery, computed once, so that it
-- bounds the index range instead of filtering every row the scan reads),
-- locked and deleted.
-- A pending row is still to be sent and never matches: a dead row that
-- `ql notifications retry` made pending again after this snapshot is
-- re-checked under its lock and left. Returns the rows deleted.
WITH doomed AS (
    SELECT o.id
      FROM qinglong.notification_outbox o
     WHERE o.state IN ('delivered', 'dead')
       AND o.created_at_ms < (SELECT {{now_ms}} - $1::bigint)
     LIMIT $2
       FOR UPDATE SKIP LOCKED
),
gone AS (
    DELETE FROM qinglong.notification_outbox o USING doomed d WHERE o.id = d.id
    RETURNING 1
)
SELECT count(*) FROM gone

-- name: RetentionEstimate
-- Dry run: what the runs rule ($1 ms) and then the logs rule ($2 ms) would
-- delete now (lost Runs as finished ones), and, when $4 (a log cap is
-- set), the bytes every log holds: runs, attempts, events, logs and bytes
-- of the first; logs and bytes of the second; then the delivered and dead
-- notifications the notifications rule ($3 ms) would delete, and the console
-- sessions expired now. Each set is
-- read once and aggregated in one pass, and the old logs leave out the
-- expired Runs' by an anti-join (a NOT IN over a set larger than work_mem
-- is scanned once per row): the cost is the rows counted, never a
-- multiple of them.
WITH doomed AS MATERIALIZED (
    SELECT r.id
      FROM qinglong.runs r
     WHERE r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
       AND r.finished_at_ms < {{now_ms}} - $1::bigint
       AND NOT EXISTS (SELECT 1 FROM qinglong.attempts a
                        WHERE a.run_id = r.id AND (a.state IN ('claimed', 'starting', 'running') OR a.lease_expires_at_ms IS NOT NULL))
),
doomed_attempts AS MATERIALIZED (
    SELECT count(*) AS attempts, count(c.attempt_id) AS logs,
           coalesce(sum(a.log_bytes) FILTER (WHERE c.attempt_id IS NOT NULL), 0)::bigint AS bytes
      FROM doomed d
      JOIN qinglong.attempts a ON a.run_id = d.id
      LEFT JOIN qinglong.run_log_chunks c ON c.attempt_id = a.id AND c.log_offset = 0
),
old_logs AS MATERIALIZED (
    SELECT count(*) AS logs, coalesce(sum(a.log_bytes), 0)::bigint AS bytes
      FROM qinglong.run_log_chunks c
      JOIN qinglong.attempts a ON a.id = c.attempt_id
      JOIN qinglong.runs r ON r.id = a.run_id
     WHERE c.log_offset = 0 AND a.finished_at_ms < {{now_ms}} - $2::bigint
       AND a.state NOT IN ('claimed', 'starting', 'running') AND a.lease_expires_at_ms IS NULL
       AND r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
       AND NOT EXISTS (SELECT 1 FROM doomed d WHERE d.id = r.id)
)
SELECT (SELECT count(*) FROM doomed), da.attempts,
       (SELECT count(*) FROM doomed d JOIN qinglong.run_events e ON e.run_id = d.id),
       da.logs, da.bytes, ol.logs, ol.bytes,
       (SELECT coalesce(sum(a.log_bytes), 0)::bigint
          FROM qinglong.run_log_chunks c JOIN qinglong.attempts a ON a.id = c.attempt_id WHERE $4::boolean AND c.log_offset = 0),
       (SELECT count(*)
          FROM qinglong.notification_outbox
         WHERE state IN ('delivered', 'dead') AND created_at_ms < {{now_ms}} - $3::bigint),
       (SELECT count(*) FROM qinglong.console_sessions WHERE expires_at_ms <= (SELECT {{now_ms}}))
  FROM doomed_attempts da, old_logs ol

-- name: RetentionSessions
-- The sessions rule: console sessions expired by the database clock, at
-- most $1, the oldest expiries first, through console_sessions_expiry (the
-- time is a subquery, computed once, so that it bounds the index range). A
-- live session never matches. Nothing is locked ahead (the maintenance
-- role holds no UPDATE on the table): two passes at once wait on the same
-- rows, and the second deletes fewer.
DELETE FROM qinglong.console_sessions
 WHERE digest IN (SELECT digest FROM qinglong.console_sessions WHERE expires_at_ms <= (SELECT {{now_ms}})
                   ORDER BY expires_at_ms LIMIT $1)
