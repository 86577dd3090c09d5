-- Dispatch: a worker's pull turns queued Runs into leased grants
-- (workers_dispatch.go). Each pull is one short transaction: SessionState
-- locks the session, then one of the two statements below answers.

-- name: GrantsOfOffer
-- A replayed pull: every attempt this worker was ever granted under the
-- offer id, with whether it was granted under the same token digest and
-- whether it is still a live, unstarted grant of this session. Any grant
-- at all means the offer was answered before: the reply is rebuilt from
-- these rows and no new Run is granted.
-- Every grant also carries its Run's occurrence for the command's
-- environment (run.Identity): the trigger's name at the Run's revision, the
-- scheduled and due times, and the request that admitted it as run.created
-- records it ('clock', run.OriginClock, when none did), and its project's
-- env (pg-0051) as it is now, which the command starts with.
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms)
SELECT a.id, a.run_id, a.number, p.name, tr.name, a.lease_version, a.lease_expires_at_ms - n.ms, e.id, e.command::text, e.digest, e.project_id::text, e.task_id::text,
       coalesce((SELECT g.name FROM qinglong.trigger_revisions g WHERE g.trigger_id = r.trigger_id AND g.revision = r.trigger_revision), ''),
       r.scheduled_for_ms, coalesce(r.due_at_ms, 0),
       coalesce((SELECT v.payload->>'manual' FROM qinglong.run_events v WHERE v.run_id = r.id AND v.seq = 1), 'clock'), p.env,
       a.lease_token_sha256 = @token_sha256,
       a.state = 'claimed' AND a.session_id = @session_id AND a.lease_expires_at_ms > n.ms
  FROM qinglong.attempts a
  JOIN qinglong.runs r ON r.id = a.run_id
  JOIN qinglong.projects p ON p.id = r.project_id
  JOIN qinglong.task_revisions tr ON tr.task_id = r.task_id AND tr.revision = r.task_revision
  JOIN qinglong.execution_revisions e ON e.task_id = r.task_id AND e.task_revision = r.task_revision AND e.executor = a.executor
  CROSS JOIN n
 WHERE a.offer_id = @offer_id AND a.worker_id = @worker_id
 ORDER BY a.run_id

-- name: CappedProjectsLock
-- Before a pull's grant, the transaction-scoped advisory lock of every
-- project with a maxRunning (pg-0049) that has a queued Run and, read
-- without a lock, room under its cap: the projects whose Runs Dispatch may
-- grant, which grants a capped project's Runs only when its id is among
-- the ones returned here. Both reads of a capped project are ranges of
-- runs_project_slot_idx, never its history of finished Runs. An advisory lock, not a counter row locked FOR
-- UPDATE: the cap is exact without a count kept beside the Runs (every
-- finish, loss, sweep and cancel would have to keep it), and the worker
-- ingress role needs no right to update projects. Exact because Dispatch
-- runs after these locks are held, and under READ COMMITTED its snapshot
-- is taken then: it sees every grant of the project that an earlier
-- holder committed, and no other pull grants the project's Runs until
-- this one commits; only a grant moves a Run into dispatching, the count
-- that the cap bounds. A project read at its cap is not locked: leaving
-- it out is always safe, and the pulls of other workers then never wait
-- for it, as they would were every capped project locked on every pull.
-- The locks are taken in key order, so two pulls never wait on each other
-- in a cycle; two projects whose keys collide only share a lock. The keys
-- are in the two-int space, apart from the one-bigint keys of migration
-- and retention; class 1903915873 is "qlca".
SELECT l.id::text
  FROM (SELECT p.id, hashtext(p.id::text) AS k
          FROM qinglong.projects p
         WHERE p.max_running > 0 AND p.status = 'active'
           AND EXISTS (SELECT 1 FROM qinglong.runs r WHERE r.project_id::text = p.id::text AND r.state = 'queued')
           AND p.max_running > (SELECT count(*) FROM qinglong.runs x
                                 WHERE x.project_id::text = p.id::text AND x.state IN ('dispatching', 'running'))
         ORDER BY k, p.id) l
 CROSS JOIN LATERAL (SELECT pg_catalog.pg_advisory_xact_lock(1903915873, l.k)) locked
 ORDER BY l.k, l.id

-- name: Dispatch
-- The grant, one statement. Picks, a backfill's Runs after every other
-- (runs.backfilled, pg-0039) and oldest Run first within each, a
-- cancel_previous replacement at the place of the Run it replaced
-- (runs.place_of, pg-0042), at most
-- min(@max, the session's free slots) queued Runs whose latest Attempt is
-- claimed, unleased and past its backoff, and whose execution revision's
-- placement labels are all among the session's labels; FOR NO KEY UPDATE
-- SKIP LOCKED, so concurrent pulls (of any replica) never pick the same
-- Run and never wait for each other.
-- Cost: revs lists the task revisions having queued Runs by a skip scan
-- of runs_queued_revision_idx (one probe each); only the revisions whose
-- placement matches contribute candidates, their first few queued Runs
-- each in the index's order (backfilled, place, id), so Runs placed elsewhere are
-- never read, and a revision's backfilled backlog only when its other
-- queued Runs do not fill the candidates. The candidates are twice
-- the slots and more, since concurrent pulls skip each other's locked rows;
-- the locking step re-checks every condition on the rows it locks. A Run
-- admitted under queue_one or cancel_previous (waits_for_previous) is not
-- picked while an earlier Run of its trigger is unfinished (one probe of
-- runs_unfinished_trigger_idx); its finishing only ever makes it
-- pickable, so reading it without a lock can delay a grant, never double
-- one. The Runs of an archived project are held, their retries too: a
-- revision of one contributes no candidate (its project's key, read once
-- per revision), so a held backlog never takes a candidate's place, and
-- the locking step checks it again. A pull racing the archive's commit
-- can still grant one: it started as the project was archived, and like a
-- running one it is not stopped.
-- A project with a maxRunning (pg-0049) contributes candidates only when
-- CappedProjectsLock locked it for this pull (@capped), and at most its
-- room: its cap less its Runs dispatching or running, counted by this
-- statement after the lock was taken (runs_project_slot_idx), the
-- oldest first; picked takes from the candidates only, so the grant never
-- passes the cap, and a capped project at its cap takes no candidate's
-- place, so it never keeps other projects' Runs from the free slots.
-- A project with an env (pg-0051) contributes candidates only to a session
-- that reads it (workerproto.ReadProjectEnv among its reads,
-- pg-0052): a worker older than the grant's projectEnv
-- would run the command without the project's variables. Like the
-- archived test, it is read once per revision from the project's row, so
-- the queued Runs of such a project are never read for a session that
-- cannot take them; the locking step checks it again, so the env the
-- grant carries, read in the same statement, is the one the session was
-- judged by: the moment of the grant counts, not the Run's admission.
-- The grant carries its Run's occurrence as GrantsOfOffer's rows do.
-- In the same statement: the Attempt gets the lease (worker, session,
-- offer, token digest, version 1, expiry = now + @lease_ms in database
-- time) and the Run goes queued → dispatching (version + 1, one event).
-- The session must be this worker's, active, its lease not passed, and
-- its worker active: otherwise nothing is taken. Free slots count the
-- session's live grants, read after SessionState locked the session, so
-- the pulls of one session see each other's.
-- The credential's max concurrency caps every process holding it, not
-- only this session: attempts still leased to the worker's older sessions
-- (a replaced process still ending its commands) count against it until
-- they end or their lease passes. A newer session opens only after the
-- older session's pull committed (SessionOpen waits for that pull's lock
-- on the older session's row), so this statement sees those grants.
WITH RECURSIVE n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
sess AS MATERIALIZED (
    SELECT f.labels, {{read_project_env}} = ANY (f.reads) AS reads_env, least(@max::int, f.free) AS take, least(@max::int, f.free) * 2 + 8 AS candidates
      FROM (SELECT s.labels, s.reads,
                   greatest(least(s.capacity - o.live, w.max_concurrency - o.live - (
                                SELECT count(*) FROM qinglong.attempts x
                                 WHERE x.worker_id = s.worker_id AND x.session_id <> s.id
                                   AND x.state IN ('claimed', 'starting', 'running')
                                   AND x.lease_expires_at_ms > (SELECT ms FROM n))), 0) AS free
              FROM qinglong.worker_sessions s
              JOIN qinglong.workers w ON w.id = s.worker_id AND w.state = 'active'
             CROSS JOIN LATERAL (SELECT count(*) AS live FROM qinglong.attempts x
                                  WHERE x.session_id = s.id AND x.state IN ('claimed', 'starting', 'running')) o
             WHERE s.id = @session_id AND s.worker_id = @worker_id AND s.state = 'active'
               AND s.lease_expires_at_ms > (SELECT ms FROM n)) f
     WHERE f.free > 0
),
revs AS (
    (SELECT r.task_id, r.task_revision
       FROM qinglong.runs r
      WHERE r.state = 'queued' AND EXISTS (SELECT 1 FROM sess)
      ORDER BY r.task_id, r.task_revision
      LIMIT 1)
    UNION ALL
    SELECT x.task_id, x.task_revision
      FROM revs v
     CROSS JOIN LATERAL (SELECT r.task_id, r.task_revision
                           FROM qinglong.runs r
                          WHERE r.state = 'queued' AND (r.task_id, r.task_revision) > (v.task_id, v.task_revision)
                          ORDER BY r.task_id, r.task_revision
                          LIMIT 1) x
),
candidates AS (
    SELECT q.id
      FROM (SELECT c.id, c.backfilled, c.place, pr.max_running AS cap, h.holding,
                   row_number() OVER (PARTITION BY pr.id ORDER BY c.backfilled, c.place, c.id) AS nth
              FROM revs v
              JOIN qinglong.execution_revisions e ON e.task_id = v.task_id AND e.task_revision = v.task_revision AND e.executor = 'remote_worker'
              JOIN qinglong.projects pr ON pr.id = e.project_id AND pr.status = 'active'
                                       AND (pr.max_running = 0 OR pr.id = ANY (@capped::uuid[]))
                                       AND (pr.env = '' OR (SELECT reads_env FROM sess))
             CROSS JOIN LATERAL (SELECT count(*) AS holding FROM qinglong.runs x
                                  WHERE pr.max_running > 0 AND x.project_id::text = pr.id::text AND x.state IN ('dispatching', 'running')) h
             CROSS JOIN LATERAL (SELECT r.id, r.backfilled, coalesce(r.place_of, r.id) AS place
                                   FROM qinglong.runs r
                                  WHERE r.task_id = v.task_id AND r.task_revision = v.task_revision AND r.state = 'queued'
                                  ORDER BY r.backfilled, coalesce(r.place_of, r.id), r.id
                                  LIMIT (SELECT candidates FROM sess)) c
             WHERE coalesce(e.command -> 'placement' -> 'labels', '{}'::jsonb) <@ (SELECT labels FROM sess)) q
     WHERE q.cap = 0 OR q.nth <= q.cap - q.holding
     ORDER BY q.backfilled, q.place, q.id
     LIMIT (SELECT candidates FROM sess)
),
picked AS (
    SELECT a.id, a.run_id
      FROM qinglong.attempts a
      JOIN qinglong.runs r ON r.id = a.run_id
     WHERE a.run_id IN (SELECT id FROM candidates)
       AND a.state = 'claimed' AND a.lease_token_sha256 IS NULL AND a.executor = 'remote_worker'
       AND (a.available_at_ms IS NULL OR a.available_at_ms <= (SELECT ms FROM n))
       AND r.state = 'queued' AND r.cancel_requested_at_ms IS NULL
       AND EXISTS (SELECT 1 FROM qinglong.projects pr WHERE pr.id = r.project_id AND pr.status = 'active'
                      AND (pr.env = '' OR (SELECT reads_env FROM sess)))
       AND (NOT r.waits_for_previous OR NOT EXISTS (
                SELECT 1 FROM qinglong.runs p
                 WHERE p.trigger_id = r.trigger_id AND p.id < r.id
                   AND p.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')))
     ORDER BY r.backfilled, coalesce(r.place_of, r.id), a.run_id
     LIMIT coalesce((SELECT take FROM sess), 0)
       FOR NO KEY UPDATE OF a, r SKIP LOCKED
),
leased AS (
    UPDATE qinglong.attempts a
       SET worker_id = @worker_id, session_id = @session_id, offer_id = @offer_id, lease_token_sha256 = @token_sha256,
           lease_version = 1, lease_expires_at_ms = n.ms + @lease_ms, offered_at_ms = n.ms,
           updated_at_ms = greatest(a.updated_at_ms, n.ms)
      FROM picked p, n
     WHERE a.id = p.id
    RETURNING a.id, a.run_id, a.number, a.lease_version, a.lease_expires_at_ms
),
moved AS (
    UPDATE qinglong.runs r
       SET state = 'dispatching', version = r.version + 1, last_event_seq = r.last_event_seq + 1,
           updated_at_ms = greatest(r.updated_at_ms, n.ms)
      FROM picked p, n
     WHERE r.id = p.run_id
    RETURNING r.id, r.project_id, r.task_id, r.task_revision, r.trigger_id, r.trigger_revision, r.scheduled_for_ms, r.due_at_ms, r.last_event_seq
),
events AS (
    INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms)
    SELECT m.id, m.last_event_seq, @event,
           jsonb_build_object('attemptId', l.id, 'attempt', l.number, 'worker', @worker_name::text), n.ms
      FROM moved m JOIN leased l ON l.run_id = m.id, n
    RETURNING 1
)
SELECT l.id, l.run_id, l.number, p.name, tr.name, l.lease_version, l.lease_expires_at_ms - n.ms, e.id, e.command::text, e.digest,
       e.project_id::text, e.task_id::text,
       coalesce((SELECT g.name FROM qinglong.trigger_revisions g WHERE g.trigger_id = m.trigger_id AND g.revision = m.trigger_revision), ''),
       m.scheduled_for_ms, coalesce(m.due_at_ms, 0),
       coalesce((SELECT v.payload->>'manual' FROM qinglong.run_events v WHERE v.run_id = m.id AND v.seq = 1), 'clock'), p.env
  FROM leased l
  JOIN moved m ON m.id = l.run_id
  JOIN qinglong.projects p ON p.id = m.project_id
  JOIN qinglong.task_revisions tr ON tr.task_id = m.task_id AND tr.revision = m.task_revision
  JOIN qinglong.execution_revisions e ON e.task_id = m.task_id AND e.task_revision = m.task_revision AND e.executor = 'remote_worker'
  CROSS JOIN n
 ORDER BY l.run_id
