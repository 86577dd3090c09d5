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

-- name: MonitorRunStates
-- Runs per unfinished state, each count cut at $2 (one range of the
-- (state, id) listing index per state, at most $2 entries each): finished
-- Runs are never counted, so the cost does not grow with history.
-- $1 the states, $2 limit.
SELECT st.state, (SELECT count(*) FROM (SELECT 1 FROM qinglong.runs r WHERE r.state = st.state LIMIT $2) c)
  FROM unnest($1::text[]) AS st (state)

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
