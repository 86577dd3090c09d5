-- The steps after a grant (start, renew, log, complete) and cancellation
-- (workers_lease.go, workers_log.go, workers_cancel.go). Each step is one
-- short transaction: a facts statement locks the attempt and its Run, Go
-- verifies the fence (attempt, worker, token digest, lease version, state,
-- expiry in database time) and decides, and the writes below apply the
-- decision, each fenced again by what the facts statement read.

-- name: LeaseFacts
-- Locks one attempt and its Run (always in this order, attempt then Run,
-- as every other locking statement on both does) and reads everything a
-- step decides on: the lease, the Run's state and cancel intent, whether a
-- later attempt exists, the command's timeout, kill grace and retry policy
-- (read from the stored command, the execution revision the Run was
-- admitted with), the database time of this transaction, and the session
-- the attempt was granted under with its state as of now (read, not
-- locked: the start and renewal replies carry it, so a replaced or
-- drained worker hears it at its next renewal).
SELECT a.run_id, a.number, a.state, a.worker_id, a.lease_token_sha256, a.lease_version, a.lease_expires_at_ms, a.deadline_at_ms,
       a.result_code, r.state, r.version, r.cancel_requested_at_ms,
       EXISTS (SELECT 1 FROM qinglong.attempts x WHERE x.run_id = a.run_id AND x.number > a.number),
       coalesce((e.command ->> 'timeoutMs')::bigint, 0),
       coalesce((e.command ->> 'killGraceMs')::bigint, 0),
       coalesce((e.command -> 'retry' ->> 'maxAttempts')::int, 0),
       coalesce((e.command -> 'retry' ->> 'backoffMs')::bigint, 0),
       coalesce(ARRAY(SELECT jsonb_array_elements_text(e.command -> 'retry' -> 'on')), '{}'),
       {{now_ms}}, a.session_id,
       CASE WHEN s.id IS NOT NULL THEN {{SessionStateNow}} END
  FROM qinglong.attempts a
  JOIN qinglong.runs r ON r.id = a.run_id
  JOIN qinglong.execution_revisions e ON e.task_id = r.task_id AND e.task_revision = r.task_revision AND e.executor = a.executor
  LEFT JOIN qinglong.worker_sessions s ON s.id = a.session_id
  LEFT JOIN qinglong.workers w ON w.id = s.worker_id
 WHERE a.id = $1
   FOR NO KEY UPDATE OF a, r

-- name: CompletionBounds
-- The times a reported end is held between (read after LeaseFacts locked
-- the attempt and its Run): the attempt's start, before which its command
-- cannot have ended, and the time of its Run's latest event, before which
-- no later change of the Run may be stamped, so the Run's events stay in
-- time order. A worker's "ended so long ago" is never trusted beyond them.
SELECT a.started_at_ms, e.created_at_ms
  FROM qinglong.attempts a
  JOIN qinglong.runs r ON r.id = a.run_id
  JOIN qinglong.run_events e ON e.run_id = r.id AND e.seq = r.last_event_seq
 WHERE a.id = $1

-- name: FinishedRunNames
-- What the replica's run.finished line names of a Run a completion just
-- finished (read in that transaction, after the attempt's end): its
-- project's current name, its task's and trigger's names at the Run's
-- revisions ('' for a Run without a trigger) and when the attempt started.
SELECT p.name, tr.name,
       coalesce((SELECT g.name FROM qinglong.trigger_revisions g WHERE g.trigger_id = r.trigger_id AND g.revision = r.trigger_revision), ''),
       a.started_at_ms
  FROM qinglong.attempts a
  JOIN qinglong.runs r ON r.id = a.run_id
  JOIN qinglong.projects p ON p.id = r.project_id
  JOIN qinglong.task_revisions tr ON tr.task_id = r.task_id AND tr.revision = r.task_revision
 WHERE a.id = $1

-- name: LatestAttempt
-- The latest attempt of a Run, read without a lock: cancellation then
-- locks it through LeaseFacts and re-checks that it is still the latest.
SELECT id FROM qinglong.attempts WHERE run_id = $1 ORDER BY number DESC LIMIT 1

-- name: AttemptStart
-- Start acknowledged: claimed → running (the worker spawns right after;
-- starting is passed through in this transaction), the command's deadline
-- fixed in database time, the lease extended. Fenced by the state and
-- lease version the facts statement read under the lock.
UPDATE qinglong.attempts
   SET state = 'running', started_at_ms = @now_ms, offer_acked_at_ms = @now_ms,
       deadline_at_ms = @deadline_at_ms, lease_expires_at_ms = @now_ms::bigint + @lease_ms::bigint,
       updated_at_ms = greatest(updated_at_ms, @now_ms)
 WHERE id = @attempt_id AND state = 'claimed' AND lease_version = @lease_version

-- name: AttemptRelease
-- Gives an unstarted grant back (its worker gave it back, or its session
-- ended): every lease field cleared, the token digest too, so a late start
-- of it is answered terminal, as after the sweep's release (SweepRelease);
-- its Run goes back to queued through RunAdvance in the same transaction.
-- Fenced by what LeaseFacts read under the lock: still claimed (never
-- started), the same token digest and lease version.
UPDATE qinglong.attempts
   SET worker_id = NULL, session_id = NULL, offer_id = NULL, lease_token_sha256 = NULL, lease_version = NULL,
       lease_expires_at_ms = NULL, offered_at_ms = NULL, updated_at_ms = greatest(updated_at_ms, @now_ms)
 WHERE id = @attempt_id AND state = 'claimed' AND lease_token_sha256 = @token_sha256 AND lease_version = @lease_version

-- name: AttemptRenew
-- Renewal: lease version v → v + 1 and the expiry extended from now in
-- database time. Fenced by the version read under the lock, so one
-- renewal of v happens once; its replay is answered from the stored v + 1.
UPDATE qinglong.attempts
   SET lease_version = lease_version + 1, lease_expires_at_ms = @now_ms::bigint + @lease_ms::bigint,
       updated_at_ms = greatest(updated_at_ms, @now_ms)
 WHERE id = @attempt_id AND state IN ('starting', 'running') AND lease_version = @lease_version

-- name: AttemptEnd
-- Ends an attempt: its terminal state, times and result; the expiry is
-- cleared (the sweep never sees it again) while the token digest and the
-- lease version stay, so a replayed completion is recognised. result_code
-- is the outcome the worker reported, NULL when the attempt was ended
-- without it (lost, cancelled before start). @ended_at_ms is when the
-- command ended: the database time of this step, or earlier for a worker's
-- late report, held within [started_at_ms, @now_ms] (CompletionBounds).
-- Fenced by the state read under the lock.
UPDATE qinglong.attempts
   SET state = @state, finished_at_ms = @ended_at_ms, exit_code = @exit_code, result_code = @result_code,
       error_code = @error_code, error_message = @error_message, lease_expires_at_ms = NULL,
       updated_at_ms = greatest(updated_at_ms, @now_ms)
 WHERE id = @attempt_id AND state = @from_state

-- name: AttemptRetryInsert
-- Attempt N + 1 of a retried Run: claimed, unleased, available after the
-- backoff. The unique (run_id, number) makes a second one impossible.
INSERT INTO qinglong.attempts (id, run_id, number, executor, state, available_at_ms, created_at_ms, updated_at_ms)
VALUES (@id, @run_id, @number, 'remote_worker', 'claimed', @available_at_ms, @now_ms, @now_ms)

-- name: RunAdvance
-- One Run state change: state, version + 1 and the next event, together;
-- fenced by the version read under the lock, so a change decided on a
-- stale read writes nothing. @cancel records the cancel intent (kept if
-- already set, stamped with the step's database time); @finished stamps the
-- end. The end and the event are stamped @at_ms: the step's database time,
-- or the time a worker's late report says its command ended, never before
-- the Run's latest event (CompletionBounds) nor after @now_ms.
WITH moved AS (
    UPDATE qinglong.runs r
       SET state = @state, version = r.version + 1, last_event_seq = r.last_event_seq + 1,
           cancel_requested_at_ms = CASE WHEN @cancel::boolean THEN coalesce(r.cancel_requested_at_ms, @now_ms) ELSE r.cancel_requested_at_ms END,
           finished_at_ms = CASE WHEN @finished::boolean THEN @at_ms ELSE r.finished_at_ms END,
           updated_at_ms = greatest(r.updated_at_ms, @now_ms)
     WHERE r.id = @run_id AND r.version = @version
    RETURNING r.id, r.last_event_seq
)
INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
SELECT m.id, m.last_event_seq, @event, @payload, @at_ms FROM moved m

-- name: LogFacts
-- Locks one attempt for a log append (appends of one attempt are
-- serialised, so two chunks can never both start at the held length) and
-- reads its lease and the bytes held, with the database time.
SELECT worker_id, state, lease_token_sha256, lease_version, lease_expires_at_ms, log_bytes, log_truncated, {{now_ms}}
  FROM qinglong.attempts
 WHERE id = $1
   FOR NO KEY UPDATE

-- name: LogChunkAt
-- The chunk stored at an offset, to recognise a replayed append.
SELECT bytes FROM qinglong.run_log_chunks WHERE attempt_id = $1 AND log_offset = $2

-- name: LogAppend
-- Stores one or two chunks (the data, and on reaching the cap a truncation
-- marker) and advances the held length, fenced by the length the facts
-- statement read under the lock: a chunk lands exactly at the end of what
-- is held, or nothing is written.
WITH advanced AS (
    UPDATE qinglong.attempts
       SET log_bytes = log_bytes + @added, log_truncated = log_truncated OR @truncated::boolean,
           updated_at_ms = greatest(updated_at_ms, @now_ms)
     WHERE id = @attempt_id AND log_bytes = @held AND NOT log_truncated
    RETURNING id
)
INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
SELECT a.id, c.log_offset, c.bytes, @now_ms
  FROM advanced a, unnest(@offsets::bigint[], @chunks::bytea[]) AS c (log_offset, bytes)

-- name: LogLength
-- What a reader of an attempt's log may read: the bytes held and whether
-- the cap cut it.
SELECT log_bytes, log_truncated FROM qinglong.attempts WHERE id = $1

-- name: LogChunksFrom
-- The chunks of an attempt from the one holding an offset on, in order,
-- read by primary key from that chunk (a follower reading the tail does
-- not re-read the chunks before it), up to the one holding the byte before
-- $3 when $3 is given (a reader taking a log a piece at a time does not
-- read the chunks after its piece). The bound is one range of the key
-- (no $3 is the largest offset there can be), not "$3 IS NULL OR": a plan
-- made once for every $3, as a prepared statement's may be, would only
-- filter by that and read every chunk to the end of the log.
SELECT log_offset, bytes FROM qinglong.run_log_chunks
 WHERE attempt_id = $1
   AND log_offset >= coalesce((SELECT max(c.log_offset) FROM qinglong.run_log_chunks c WHERE c.attempt_id = $1 AND c.log_offset <= $2), 0)
   AND log_offset < coalesce($3::bigint, 9223372036854775807)
 ORDER BY log_offset

-- name: AttemptNewerThanAll
-- Whether attempt id $1, which the database does not hold, is newer than
-- every attempt it holds (ids are UUIDv7, minted in order): one range
-- probe of the primary key above it.
SELECT NOT EXISTS (SELECT 1 FROM qinglong.attempts WHERE id > $1::uuid)

-- name: AttemptMarkRolledBack
-- Marks started attempt $1 as one whose worker, holding lease token digest
-- $2, presented lease version $3 ahead of the database's: the sweep that
-- ends it at its lease's expiry records it database_rolled_back rather
-- than lease_expired. Nothing else changes; the lease runs out as before.
UPDATE qinglong.attempts
   SET error_code = 'database_rolled_back'
 WHERE id = $1 AND lease_token_sha256 = $2 AND lease_version < $3
   AND state IN ('starting', 'running') AND error_code IS NULL
