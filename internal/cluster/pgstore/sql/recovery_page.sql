-- name: RecoveryPage
-- Startup recovery page (docs/architecture.md, "Worker ingress"). Read-only; runs as the runtime role,
-- after the lease sweep has settled every expired lease.
-- Invariants:
--   * the horizon is database time: the first page samples clock_timestamp()
--     once (MATERIALIZED CTE) and later pages pass it back ($1), so the scan
--     is bounded by Runs created at or before one database instant and
--     converges even while other replicas keep admitting;
--   * a page examines at most $3 unfinished Runs, in id order after $2,
--     through runs_unfinished_idx, however many of them are normal; a lost
--     Run is finished;
--   * a Run is normal when some rule moves it on: queued or retry_wait with
--     its latest Attempt claimed, unleased and never started (a worker or
--     the backoff takes it); dispatching with its latest Attempt claimed
--     under a lease, or running with it starting or running under a lease
--     (the worker, or the sweep once the lease expires, ends it). A cancel
--     intent is normal only while running. Any other shape is a candidate,
--     held for an operator; reason names the first drift, in the order
--     below.
-- The first row always carries the horizon, the examined count and the
-- last examined id, even when no candidate exists (LEFT JOIN on a one-row
-- relation); candidate columns are NULL then.
-- $1 horizon ms (NULL: sample now), $2 after run id (NULL: from the start), $3 limit.
WITH horizon AS MATERIALIZED (
    SELECT coalesce($1::bigint, {{now_ms}}) AS ms
),
examined AS MATERIALIZED (
    SELECT r.*
      FROM qinglong.runs r
     WHERE r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
       AND ($2::uuid IS NULL OR r.id > $2::uuid)
       AND r.created_at_ms <= (SELECT ms FROM horizon)
     ORDER BY r.id
     LIMIT $3
),
judged AS (
    SELECT r.id, r.project_id, r.trigger_id, r.state, r.updated_at_ms, a.number,
           CASE
               WHEN r.state NOT IN ('queued', 'retry_wait', 'dispatching', 'running')
                                                          THEN 'run_state'
               WHEN a.id IS NULL                          THEN 'attempt_missing'
               WHEN a.executor <> 'remote_worker'         THEN 'attempt_executor'
               WHEN r.cancel_requested_at_ms IS NOT NULL AND r.state <> 'running'
                                                          THEN 'run_cancel_requested'
               WHEN r.state IN ('queued', 'retry_wait') AND a.lease_expires_at_ms IS NOT NULL
                                                          THEN 'attempt_leased_while_waiting'
               WHEN r.state IN ('dispatching', 'running') AND a.lease_expires_at_ms IS NULL
                                                          THEN 'run_unleased'
               WHEN r.state IN ('queued', 'retry_wait', 'dispatching') AND a.state <> 'claimed'
                                                          THEN 'attempt_state'
               WHEN r.state = 'running' AND a.state NOT IN ('starting', 'running')
                                                          THEN 'attempt_state'
               WHEN r.state <> 'running' AND a.started_at_ms IS NOT NULL
                                                          THEN 'attempt_started_at'
               WHEN a.finished_at_ms IS NOT NULL          THEN 'attempt_finished_at'
           END AS reason
      FROM examined r
      LEFT JOIN LATERAL (
          SELECT *
            FROM qinglong.attempts x
           WHERE x.run_id = r.id
           ORDER BY x.number DESC
           LIMIT 1
      ) a ON true
)
SELECT (SELECT ms FROM horizon),
       (SELECT count(*) FROM examined),
       (SELECT e.id FROM examined e ORDER BY e.id DESC LIMIT 1),
       j.id, j.project_id, j.trigger_id, j.state, j.reason, j.number, j.updated_at_ms
  FROM (SELECT 1) AS one
  LEFT JOIN judged j ON j.reason IS NOT NULL
 ORDER BY j.id
