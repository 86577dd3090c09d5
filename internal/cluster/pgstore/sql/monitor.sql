-- name: MonitorBacklog
-- Monitoring's view of the schedule (monitor.go), read every few seconds by
-- every replica, so its cost is bounded whatever the table holds:
--   * the database clock is sampled once;
--   * due rows no claim holds, of schedulable triggers (never a paused
--     one: `schedulable` is false while paused), read through the claim's
--     own partial index trigger_schedules_unclaimed_order_idx in its order
--     (the leading key is the due time) and cut at $1: a range scan of at
--     most $1 index entries, the first of which is the oldest due row.
-- $1 limit.
WITH now AS MATERIALIZED (
    SELECT {{now_ms}} AS ms
),
due AS (
    SELECT s.next_fire_at_ms + s.due_offset_ms AS due_at_ms
      FROM qinglong.trigger_schedules s
     WHERE s.claim_owner IS NULL AND s.schedulable AND s.due_offset_ms IS NOT NULL
       AND s.next_fire_at_ms + s.due_offset_ms <= (SELECT ms FROM now)
     ORDER BY s.next_fire_at_ms + s.due_offset_ms NULLS FIRST
     LIMIT $1
)
SELECT (SELECT ms FROM now), count(*), min(due_at_ms) FROM due

-- name: MonitorBacklogInProjects
-- The console overview's backlog for a user bound to projects: the due
-- rows of MonitorBacklog of the projects named in $2 alone, filtered
-- before the count is cut at $1, so the count is of the user's projects
-- whatever other projects have due. It reads those projects' triggers
-- first (by name, then triggers_project_name_key), then each one's
-- schedule row by its key (the array of their ids), never the claim's due
-- index, whose other projects' rows it would have to walk past: the due
-- time is compared and sorted as `+ 0`, which that index cannot serve,
-- and the array of ids leaves the planner no estimate that favours a
-- scan, whatever the statistics. The cost grows with the user's projects'
-- triggers, never with the rest of the installation's backlog.
-- $1 limit, $2 project names.
WITH now AS MATERIALIZED (
    SELECT {{now_ms}} AS ms
),
due AS (
    SELECT s.next_fire_at_ms + s.due_offset_ms AS due_at_ms
      FROM qinglong.trigger_schedules s
     WHERE s.trigger_id = ANY (ARRAY(SELECT t.id FROM qinglong.projects ip
                                      JOIN qinglong.triggers t ON t.project_id = ip.id
                                     WHERE ip.name = ANY($2::text[])))
       AND s.claim_owner IS NULL AND s.schedulable AND s.due_offset_ms IS NOT NULL
       AND s.next_fire_at_ms + s.due_offset_ms + 0 <= (SELECT ms FROM now)
     ORDER BY s.next_fire_at_ms + s.due_offset_ms + 0
     LIMIT $1
)
SELECT count(*), min(due_at_ms) FROM due

-- name: MonitorRunStates
-- Runs per unfinished state, each count cut at $2 (one range of
-- runs_unfinished_state_idx per state, at most $2 entries each): finished
-- Runs are never counted, so the cost does not grow with history. The
-- filter names the index's condition, which the states of $1 alone cannot
-- prove to the planner (pg-0041).
-- $1 the states, $2 limit.
SELECT st.state, (SELECT count(*) FROM (SELECT 1 FROM qinglong.runs r
                                        WHERE r.state = st.state AND r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
                                        LIMIT $2) c)
  FROM unnest($1::text[]) AS st (state)

-- name: MonitorOldestQueued
-- When the longest-waiting queued Run was queued (a retried Run: when
-- SweepRequeue queued it again), apart from backfills', and when the
-- longest-waiting backfilled one was: one probe each of
-- runs_queued_since_idx, which holds only queued Runs by the backfill mark
-- first, however many Runs the table holds. The order asks for that
-- index: over a few queued Runs a min() costs the same through any
-- partial index of queued Runs, and the planner took a scan of another
-- (runs_queued_revision_idx, rebuilt by pg-0039). NULL when none is
-- queued.
SELECT (SELECT r.queued_at_ms FROM qinglong.runs r WHERE r.state = 'queued' AND r.backfilled = false ORDER BY r.queued_at_ms LIMIT 1),
       (SELECT r.queued_at_ms FROM qinglong.runs r WHERE r.state = 'queued' AND r.backfilled = true ORDER BY r.queued_at_ms LIMIT 1)

-- name: MonitorWorkers
-- Live worker sessions and their free slots as of their last heartbeat:
-- active sessions whose lease has not passed in database time, of a
-- credential not revoked (one row per running worker process; a revoked
-- worker's process is refused and exits, and one that stopped cleanly
-- ended its session). The IN list repeats the predicate of
-- worker_sessions_live_expiry_idx, so the read goes through the sweep's
-- index of live sessions and never visits the ended ones, which
-- accumulate.
SELECT count(*), coalesce(sum(greatest(s.capacity - s.running, 0)), 0)
  FROM qinglong.worker_sessions s
  JOIN qinglong.workers w ON w.id = s.worker_id AND w.state <> 'revoked'
 WHERE s.state IN ('active', 'draining') AND s.state = 'active' AND s.lease_expires_at_ms > {{now_ms}}

-- name: MonitorWorkerStates
-- Worker sessions per state, for qinglong_workers: live ones (their lease
-- not passed in database time) active or draining, and the ones the sweep
-- expired within the last $1 ms of database time (their worker stopped
-- heartbeating without ending its session), split by whether their worker
-- came back within its grace: lost when the grace passed since the expiry
-- and the worker did not register again within it, expired otherwise (it
-- registered again within it, or it has not passed yet). The grace is the
-- run lease the session was registered under (run_lease_ms, pg-0055; $3,
-- the asking replica's, for a session that recorded none) plus the session
-- lease $4: every replica gives a worker the same state, whatever its own
-- --run-lease. A database outage expires
-- every session, healthy workers' too (no replica could record their
-- heartbeats), and those register again once a replica answers: their
-- sessions are expired, never lost. The worker's next session is its
-- generation + 1 (worker_sessions_generation_key; a registration while a
-- session is live replaces it, so the next one of an expired session came
-- after its expiry). Both counts together are cut at $2. Sessions of a
-- revoked credential are left out: their worker was refused, and their
-- expiry is the revocation's doing, not a loss. One statement, two index
-- ranges: the live sessions through worker_sessions_live_expiry_idx (the
-- IN list repeats its predicate; a worker has at most one live session),
-- the expired ones through worker_sessions_expired_idx, from the window's
-- start, each with one probe of the generation key for its next session;
-- ended, replaced and older expired sessions, which accumulate, are never
-- visited.
WITH n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
e AS (
    SELECT x.updated_at_ms <= (SELECT ms FROM n) - (coalesce(x.run_lease_ms, $3::bigint) + $4::bigint)
           AND NOT EXISTS (SELECT 1
                             FROM qinglong.worker_sessions y
                            WHERE y.worker_id = x.worker_id AND y.generation = x.generation + 1
                              AND y.created_at_ms <= x.updated_at_ms + coalesce(x.run_lease_ms, $3::bigint) + $4::bigint) AS lost
      FROM qinglong.worker_sessions x
      JOIN qinglong.workers w ON w.id = x.worker_id AND w.state <> 'revoked'
     WHERE x.state = 'expired' AND x.updated_at_ms > (SELECT ms FROM n) - $1::bigint
     LIMIT $2
)
SELECT count(*) FILTER (WHERE l.state = 'active'),
       count(*) FILTER (WHERE l.state = 'draining'),
       (SELECT count(*) FILTER (WHERE NOT e.lost) FROM e),
       (SELECT count(*) FILTER (WHERE e.lost) FROM e)
  FROM (SELECT s.state
          FROM qinglong.worker_sessions s
          JOIN qinglong.workers w ON w.id = s.worker_id AND w.state <> 'revoked'
         WHERE s.state IN ('active', 'draining') AND s.lease_expires_at_ms > (SELECT ms FROM n)) l

-- name: MonitorUnplaceable
-- Queued Runs that no live worker taking work could take whatever its
-- free slots: no active session of an active credential, its lease not
-- passed, carries every label of the placement of the Run's execution
-- revision (so every queued Run while no worker takes work) and, when the
-- Run's project has an env, reads it (workerproto.ReadProjectEnv among its reads; the
-- Runs `ql runs show` says wait with workers_too_old). These are the Runs
-- a pull can never grant until another worker connects, one with their
-- labels or one that reads project env (Dispatch, workers_dispatch.sql,
-- applies the same containment and the same env test; the project's row
-- is read by its key, once per revision). Bounded like Dispatch's own
-- search, whatever the tables
-- hold: the task revisions having queued Runs are listed by a skip scan
-- of runs_queued_revision_idx (one probe each, at most $1 revisions),
-- each placement is compared with the live sessions (the IN list repeats
-- the predicate of worker_sessions_live_expiry_idx), and the Runs of the
-- revisions no session matches are counted through the same index, cut at
-- $1 in all.
-- $1 limit.
WITH RECURSIVE n AS MATERIALIZED (SELECT {{now_ms}} AS ms),
takers AS MATERIALIZED (
    SELECT s.labels, {{read_project_env}} = ANY (s.reads) AS reads_env
      FROM qinglong.worker_sessions s
      JOIN qinglong.workers w ON w.id = s.worker_id AND w.state = 'active'
     WHERE s.state IN ('active', 'draining') AND s.state = 'active' AND s.lease_expires_at_ms > (SELECT ms FROM n)
),
revs AS (
    (SELECT r.task_id, r.task_revision
       FROM qinglong.runs r
      WHERE r.state = 'queued'
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
unplaceable AS (
    SELECT v.task_id, v.task_revision
      FROM (SELECT task_id, task_revision FROM revs LIMIT $1) v
      JOIN qinglong.execution_revisions e ON e.task_id = v.task_id AND e.task_revision = v.task_revision AND e.executor = 'remote_worker'
     WHERE NOT EXISTS (SELECT 1 FROM takers t
                        WHERE coalesce(e.command -> 'placement' -> 'labels', '{}'::jsonb) <@ t.labels
                          AND (t.reads_env OR NOT EXISTS (SELECT 1 FROM qinglong.projects pr WHERE pr.id = e.project_id AND pr.env <> '')))
)
SELECT count(*)
  FROM (SELECT 1
          FROM unplaceable v
         CROSS JOIN LATERAL (SELECT 1 FROM qinglong.runs r
                              WHERE r.task_id = v.task_id AND r.task_revision = v.task_revision AND r.state = 'queued'
                              LIMIT $1) q
         LIMIT $1) c

-- name: MonitorTriggerActivity
-- Per-trigger monitoring (/metrics with --metrics-per-trigger): the first
-- $1 enabled triggers of active projects by project then trigger name,
-- each with its newest Run's creation (the first entry of
-- runs_trigger_listing_idx, ids being UUIDv7 in admission order), its
-- latest succeeded Run's end (the first entry of the partial index
-- runs_trigger_succeeded_idx) and the instant its schedule's next
-- occurrence falls due (its time plus jitter) while a claim could take it
-- (schedulable, not paused, not ended, its revision current); whether it
-- is paused (on its own or with its project: the schedule's primary key,
-- false before its first initialisation); beside them, how many such
-- triggers there are, counted up to $2. The page is
-- materialised first, so the Runs are probed for at most $1 triggers: the
-- read walks the catalogue (which does not grow with history) and never
-- scans runs.
-- $1 limit, $2 count cap.
WITH eligible AS (
    SELECT p.name AS project, t.name AS trigger, t.id AS trigger_id, t.current_revision AS revision
      FROM qinglong.projects p
      JOIN qinglong.triggers t ON t.project_id = p.id
      JOIN qinglong.trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
     WHERE p.status = 'active' AND r.enabled
),
page AS MATERIALIZED (
    SELECT project, trigger, trigger_id, revision FROM eligible ORDER BY project, trigger LIMIT $1
)
SELECT g.project, g.trigger, lr.created_at_ms, ls.finished_at_ms, nf.due_at_ms, coalesce(ps.paused, false),
       (SELECT count(*) FROM (SELECT 1 FROM eligible LIMIT $2) e)::int
  FROM page g
  LEFT JOIN LATERAL (SELECT l.created_at_ms FROM qinglong.runs l
                      WHERE l.trigger_id = g.trigger_id ORDER BY l.id DESC LIMIT 1) lr ON true
  LEFT JOIN LATERAL (SELECT s.finished_at_ms FROM qinglong.runs s
                      WHERE s.trigger_id = g.trigger_id AND s.state = 'succeeded' AND s.finished_at_ms IS NOT NULL
                      ORDER BY s.finished_at_ms DESC LIMIT 1) ls ON true
  LEFT JOIN LATERAL (SELECT c.next_fire_at_ms + c.due_offset_ms AS due_at_ms FROM qinglong.trigger_schedules c
                      WHERE c.trigger_id = g.trigger_id AND c.trigger_revision = g.revision
                        AND c.schedulable AND NOT c.paused AND c.due_offset_ms IS NOT NULL) nf ON true
  LEFT JOIN qinglong.trigger_schedules ps ON ps.trigger_id = g.trigger_id
 ORDER BY g.project, g.trigger
