-- The lease sweep every replica runs (workers_sweep.go): bounded pages,
-- FOR UPDATE SKIP LOCKED, so replicas sweeping at once split the work and
-- a row a step holds is left for the next page.

-- name: SweepRelease
-- Unstarted grants whose lease passed in database time: nothing was
-- spawned (a worker spawns only after its start is acknowledged), so the
-- grant is released (every lease field cleared, the token digest too, so
-- a late start is answered terminal) and the Run goes dispatching → queued
-- (version + 1, one event) to be offered again. Reads only expired leases
-- through attempts_lease_expiry_idx. Returns the number released.
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
picked AS (
    SELECT a.id, a.run_id, a.number
      FROM qinglong.attempts a
      JOIN qinglong.runs r ON r.id = a.run_id
     WHERE a.lease_expires_at_ms <= (SELECT ms FROM n) AND a.state = 'claimed'
     ORDER BY a.lease_expires_at_ms
     LIMIT @limit
       FOR NO KEY UPDATE OF a, r SKIP LOCKED
),
released AS (
    UPDATE qinglong.attempts a
       SET worker_id = NULL, session_id = NULL, offer_id = NULL, lease_token_sha256 = NULL, lease_version = NULL,
           lease_expires_at_ms = NULL, offered_at_ms = NULL, updated_at_ms = greatest(a.updated_at_ms, n.ms)
      FROM picked p, n
     WHERE a.id = p.id
    RETURNING a.id
),
moved AS (
    UPDATE qinglong.runs r
       SET state = 'queued', version = r.version + 1, last_event_seq = r.last_event_seq + 1,
           updated_at_ms = greatest(r.updated_at_ms, n.ms)
      FROM picked p, n
     WHERE r.id = p.run_id AND r.state = 'dispatching'
    RETURNING r.id, r.last_event_seq
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT m.id, m.last_event_seq, @event, jsonb_build_object('attemptId', p.id, 'attempt', p.number, 'reason', 'grant_expired_unstarted'), n.ms
      FROM moved m JOIN picked p ON p.run_id = m.id, n
    RETURNING 1
)
SELECT count(*) FROM released

-- name: SweepStartedPage
-- Started attempts whose lease passed in database time, with their Run
-- and retry policy, locked (attempt then Run) and skipped when another
-- step holds them, and whether the worker's credential was revoked while
-- the lease still ran (its worker was refused and killed the command:
-- that, not a crash, is why the renewals stopped), and whether the lease
-- ran out at or after the deadline (the command passed its timeout while
-- its worker held the lease; a lease that ran out before it is a worker
-- that vanished, however late the sweep comes), and when the lease ran
-- out, in database time, so Go can tell a lease no replica swept for long
-- after (the replicas could not reach the database, or none ran, and
-- refused the renewals) from one its worker stopped renewing. Go decides
-- each (lost — timed out when the lease outlived the deadline — then
-- retry or Run lost) and writes it in this same transaction with the
-- fenced statements of workers_lease.sql.
SELECT a.id, a.run_id, a.number, a.state, a.deadline_at_ms, r.state, r.version, r.cancel_requested_at_ms,
       coalesce((e.command -> 'retry' ->> 'maxAttempts')::int, 0),
       coalesce((e.command -> 'retry' ->> 'backoffMs')::bigint, 0),
       coalesce(ARRAY(SELECT jsonb_array_elements_text(e.command -> 'retry' -> 'on')), '{}'),
       n.ms, coalesce(w.revoked_at_ms < a.lease_expires_at_ms, false),
       coalesce(a.deadline_at_ms <= a.lease_expires_at_ms, false), a.lease_expires_at_ms
  FROM qinglong.attempts a
  JOIN qinglong.runs r ON r.id = a.run_id
  JOIN qinglong.execution_revisions e ON e.task_id = r.task_id AND e.task_revision = r.task_revision AND e.executor = a.executor
  LEFT JOIN qinglong.workers w ON w.id = a.worker_id
  CROSS JOIN (SELECT {{now_ms}} AS ms) n
 WHERE a.lease_expires_at_ms <= n.ms AND a.state IN ('starting', 'running')
 ORDER BY a.lease_expires_at_ms
 LIMIT $1
   FOR NO KEY UPDATE OF a, r SKIP LOCKED

-- name: SweepRequeue
-- retry_wait Runs whose next attempt's backoff passed in database time go
-- queued (version + 1, one event) and wait in the queue from now
-- (queued_at_ms: monitoring's oldest queued Run does not count the earlier
-- attempts and the backoff as waiting for a start); the attempt's backoff
-- is cleared, so attempts_backoff_idx holds only attempts still waiting.
-- Returns the number requeued and the time from now to the earliest
-- backoff still running (NULL when none runs), read by one probe of
-- attempts_backoff_idx: the sweep's next round is set for it, so a retry
-- is queued when its backoff ends rather than at the sweep's cadence. Both
-- are in database time, so the wait does not depend on the replica's
-- clock.
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
picked AS (
    SELECT a.id, a.run_id, a.number
      FROM qinglong.attempts a
      JOIN qinglong.runs r ON r.id = a.run_id
     WHERE a.available_at_ms <= (SELECT ms FROM n) AND a.state = 'claimed' AND a.lease_token_sha256 IS NULL
       AND r.state = 'retry_wait'
     ORDER BY a.available_at_ms
     LIMIT @limit
       FOR NO KEY UPDATE OF a, r SKIP LOCKED
),
cleared AS (
    UPDATE qinglong.attempts a
       SET available_at_ms = NULL, updated_at_ms = greatest(a.updated_at_ms, n.ms)
      FROM picked p, n
     WHERE a.id = p.id
    RETURNING a.id
),
moved AS (
    UPDATE qinglong.runs r
       SET state = 'queued', version = r.version + 1, last_event_seq = r.last_event_seq + 1,
           updated_at_ms = greatest(r.updated_at_ms, n.ms), queued_at_ms = greatest(r.queued_at_ms, n.ms)
      FROM picked p, n
     WHERE r.id = p.run_id
    RETURNING r.id, r.last_event_seq
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT m.id, m.last_event_seq, @event, jsonb_build_object('attemptId', p.id, 'attempt', p.number, 'reason', 'retry'), n.ms
      FROM moved m JOIN picked p ON p.run_id = m.id, n
    RETURNING 1
)
SELECT (SELECT count(*) FROM moved),
       (SELECT b.available_at_ms - (SELECT ms FROM n)
          FROM qinglong.attempts b
         WHERE b.available_at_ms > (SELECT ms FROM n) AND b.state = 'claimed' AND b.lease_token_sha256 IS NULL
         ORDER BY b.available_at_ms
         LIMIT 1)

-- name: SweepSessions
-- Live sessions whose lease passed in database time become expired; the
-- worker must register again. Their grants keep their own run leases.
UPDATE qinglong.worker_sessions s
   SET state = 'expired', updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM (SELECT {{now_ms}} AS ms) n
 WHERE s.id IN (SELECT x.id FROM qinglong.worker_sessions x
                 WHERE x.state IN ('active', 'draining') AND x.lease_expires_at_ms <= {{now_ms}}
                 ORDER BY x.lease_expires_at_ms
                 LIMIT $1
                   FOR NO KEY UPDATE SKIP LOCKED)
