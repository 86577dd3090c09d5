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
-- refused the renewals) from one its worker stopped renewing, and the
-- last time its worker was heard from for it: updated_at_ms, which only
-- the worker's own steps write while an attempt is started (its start,
-- each renewal, each log append), so the attempt ends then rather than a
-- lease later; and the time of its Run's latest event, before which the
-- Run's end may not be stamped; and whether a worker was found ahead of
-- the database on it (AttemptMarkRolledBack). Go decides each (lost — timed out when the
-- lease outlived the deadline — then retry or Run lost) and writes it in
-- this same transaction with the fenced statements of workers_lease.sql.
SELECT a.id, a.run_id, a.number, a.state, a.deadline_at_ms, r.state, r.version, r.cancel_requested_at_ms,
       coalesce((e.command -> 'retry' ->> 'maxAttempts')::int, 0),
       coalesce((e.command -> 'retry' ->> 'backoffMs')::bigint, 0),
       coalesce(ARRAY(SELECT jsonb_array_elements_text(e.command -> 'retry' -> 'on')), '{}'),
       n.ms, coalesce(w.revoked_at_ms < a.lease_expires_at_ms, false),
       coalesce(a.deadline_at_ms <= a.lease_expires_at_ms, false), a.lease_expires_at_ms,
       a.updated_at_ms, (SELECT ev.created_at_ms FROM qinglong.run_events ev WHERE ev.run_id = r.id AND ev.seq = r.last_event_seq),
       a.error_code IS NOT DISTINCT FROM 'database_rolled_back'
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

-- name: SweepNoteWaiting
-- Queued Runs that have been queued for at least @grace_ms in database
-- time (WaitingNoteGrace: a Run admitted while a worker restarts, its
-- session ended and the new one not yet registered, is taken a moment
-- later and must not keep a note saying no worker could take it) and that
-- no live worker taking work could take, because none carries every label
-- of their task's placement (every such Run while no worker takes work:
-- none connected, or all draining), get one run.waiting
-- event (version + 1) with the reason as the Run's `waiting` object says
-- it (no_worker, workers_draining, no_matching_worker, or workers_too_old
-- when workers carrying the labels take work but, the Runs' project
-- having an env, none reads it: Dispatch's test, pg-0052), the labels the
-- placement needs and the workers counted; waiting_noted_at_ms marks the
-- Run noted, so it is noted once, never again at later rounds, whatever
-- happens to it after. The decision reads the live sessions without a
-- lock (a worker that connects meanwhile makes the note a moment stale,
-- never wrong when written); only the Runs noted are locked, FOR NO KEY
-- UPDATE SKIP LOCKED, so a pull granting one of them wins and the note
-- waits for the next round, where the Run is no longer queued.
-- Cost, whatever the queue holds: the task revisions having un-noted
-- queued Runs are listed by a skip scan of runs_queued_unnoted_idx (one
-- probe each, at most @revisions), each placement is compared with the
-- live sessions (the IN list repeats the predicate of
-- worker_sessions_live_expiry_idx), and at most @limit Runs of the
-- revisions nobody matches are read through the same index, oldest queued
-- first, as a range ending at the grace's cut-off, so Runs queued within
-- the grace are never read (a revision having only such Runs costs one
-- probe). Each Run read is then locked and written through its primary
-- key, one probe each (a lateral lock, an id array), so a large queue's
-- estimates never turn that into a scan of the queued Runs. A noted Run
-- leaves that index, so Runs already noted are never read again.
WITH RECURSIVE n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
cutoff AS MATERIALIZED (SELECT ms - @grace_ms::bigint AS ms FROM n),
live AS MATERIALIZED (
    SELECT s.labels, s.state = 'active' AND w.state = 'active' AS takes, {{read_project_env}} = ANY (s.reads) AS reads_env
      FROM qinglong.worker_sessions s
      JOIN qinglong.workers w ON w.id = s.worker_id AND w.state <> 'revoked'
     WHERE s.state IN ('active', 'draining') AND s.lease_expires_at_ms > (SELECT ms FROM n)
),
counts AS MATERIALIZED (
    SELECT count(*) AS live, count(*) FILTER (WHERE takes) AS takers FROM live
),
revs AS (
    (SELECT r.task_id, r.task_revision
       FROM qinglong.runs r
      WHERE r.state = 'queued' AND r.waiting_noted_at_ms IS NULL
      ORDER BY r.task_id, r.task_revision
      LIMIT 1)
    UNION ALL
    SELECT x.task_id, x.task_revision
      FROM revs v
     CROSS JOIN LATERAL (SELECT r.task_id, r.task_revision
                           FROM qinglong.runs r
                          WHERE r.state = 'queued' AND r.waiting_noted_at_ms IS NULL
                            AND (r.task_id, r.task_revision) > (v.task_id, v.task_revision)
                          ORDER BY r.task_id, r.task_revision
                          LIMIT 1) x
),
placed AS MATERIALIZED (
    SELECT v.task_id, v.task_revision, coalesce(e.command -> 'placement' -> 'labels', '{}'::jsonb) AS labels,
           coalesce((SELECT pr.env <> '' FROM qinglong.projects pr WHERE pr.id = e.project_id), false) AS needs_env
      FROM (SELECT task_id, task_revision FROM revs LIMIT @revisions) v
      JOIN qinglong.execution_revisions e ON e.task_id = v.task_id AND e.task_revision = v.task_revision AND e.executor = 'remote_worker'
),
unplaced AS MATERIALIZED (
    SELECT p.task_id, p.task_revision, p.labels,
           (SELECT count(*) FROM live l WHERE l.takes AND p.labels <@ l.labels) AS matching
      FROM placed p
     WHERE NOT EXISTS (SELECT 1 FROM live l WHERE l.takes AND p.labels <@ l.labels AND (NOT p.needs_env OR l.reads_env))
),
candidates AS (
    SELECT c.id, u.labels, u.matching
      FROM unplaced u
     CROSS JOIN LATERAL (SELECT r.id
                           FROM qinglong.runs r
                          WHERE r.task_id = u.task_id AND r.task_revision = u.task_revision
                            AND r.state = 'queued' AND r.waiting_noted_at_ms IS NULL
                            AND r.queued_at_ms <= (SELECT ms FROM cutoff)
                          ORDER BY r.queued_at_ms, r.id
                          LIMIT @limit) c
     ORDER BY c.id
     LIMIT @limit
),
picked AS (
    SELECT x.id, c.labels, c.matching
      FROM candidates c
     CROSS JOIN LATERAL (SELECT r.id
                           FROM qinglong.runs r
                          WHERE r.id = c.id AND r.state = 'queued' AND r.waiting_noted_at_ms IS NULL
                            FOR NO KEY UPDATE OF r SKIP LOCKED) x
),
moved AS (
    UPDATE qinglong.runs r
       SET version = r.version + 1, last_event_seq = r.last_event_seq + 1,
           updated_at_ms = greatest(r.updated_at_ms, n.ms), waiting_noted_at_ms = n.ms
      FROM n
     WHERE r.id = ANY (ARRAY(SELECT id FROM picked))
    RETURNING r.id, r.last_event_seq
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT m.id, m.last_event_seq, @event,
           jsonb_build_object('reason', CASE WHEN c.live = 0 THEN 'no_worker'
                                             WHEN c.takers = 0 THEN 'workers_draining'
                                             WHEN p.matching > 0 THEN 'workers_too_old'
                                             ELSE 'no_matching_worker' END,
                              'labels', p.labels,
                              'workers', CASE WHEN c.takers = 0 THEN c.live WHEN p.matching > 0 THEN p.matching ELSE c.takers END)
           || CASE WHEN c.takers > 0 AND p.matching > 0 THEN jsonb_build_object('reads', {{read_project_env}}) ELSE '{}'::jsonb END,
           n.ms
      FROM moved m JOIN picked p ON p.id = m.id, counts c, n
    RETURNING 1
)
SELECT count(*) FROM moved

-- name: SweepSessions
-- Live sessions whose lease passed in database time become expired; the
-- worker must register again. Their grants keep their own run leases.
-- FOR NO KEY UPDATE SKIP LOCKED and the live state in the fence give each
-- session to exactly one replica's sweep, so the row returned for it (the
-- replica's worker.session_expired line) is returned once in the whole
-- cluster. Returns, for each session expired, its worker (name, id), its
-- generation and version, its last heartbeat, its state before and the
-- attempts still leased under it, counted through
-- attempts_session_live_idx (at most its capacity each).
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
picked AS (
    SELECT x.id, x.state
      FROM qinglong.worker_sessions x
     WHERE x.state IN ('active', 'draining') AND x.lease_expires_at_ms <= (SELECT ms FROM n)
     ORDER BY x.lease_expires_at_ms
     LIMIT $1
       FOR NO KEY UPDATE SKIP LOCKED
),
expired AS (
    UPDATE qinglong.worker_sessions s
       SET state = 'expired', updated_at_ms = greatest(s.updated_at_ms, n.ms)
      FROM picked p, n
     WHERE s.id = p.id
    RETURNING s.id, s.worker_id, s.generation, s.version, s.heartbeat_at_ms, p.state AS was
)
SELECT e.id, w.name, e.worker_id, e.generation, e.version, e.heartbeat_at_ms, e.was, w.state = 'revoked',
       (SELECT count(*) FROM qinglong.attempts a
         WHERE a.session_id = e.id AND a.state IN ('claimed', 'starting', 'running')),
       n.ms
  FROM expired e
  JOIN qinglong.workers w ON w.id = e.worker_id
 CROSS JOIN n
 ORDER BY e.id
