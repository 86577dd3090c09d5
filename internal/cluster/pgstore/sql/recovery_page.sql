-- name: RecoveryPage
-- Startup recovery page (docs/architecture.md, "Rounds and the lifecycle"). Read-only; runs as the runtime role.
-- Invariants:
--   * the horizon is database time: the first page samples clock_timestamp()
--     once (MATERIALIZED CTE) and later pages pass it back ($1), so the scan
--     is bounded by Runs created at or before one database instant and
--     converges even while other replicas keep admitting;
--   * a page examines at most $3 unfinished Runs, in id order after $2,
--     through runs_unfinished_idx, however many of them are pristine;
--   * pristine scheduler output is excluded exactly: a queued, uncancelled,
--     scheduled Run in its admission shape (queued time set, version 2,
--     events 1–2, never updated) whose latest Attempt is number 1, claimed,
--     remote_worker, with every worker/session/lease/offer/callback/
--     deadline/backoff/start/result/error/log field at its initial value and never updated. Any
--     other shape is a candidate; reason names the first drift, in the
--     order below.
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
     WHERE r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out')
       AND ($2::uuid IS NULL OR r.id > $2::uuid)
       AND r.created_at_ms <= (SELECT ms FROM horizon)
     ORDER BY r.id
     LIMIT $3
),
judged AS (
    SELECT r.id, r.project_id, r.trigger_id, r.state, r.updated_at_ms, a.number,
           CASE
               WHEN r.state = 'dispatching'               THEN 'run_dispatching'
               WHEN r.state <> 'queued'                   THEN 'run_state'
               WHEN r.trigger_id IS NULL                  THEN 'run_not_scheduled'
               WHEN r.cancel_requested_at_ms IS NOT NULL  THEN 'run_cancel_requested'
               WHEN r.queued_at_ms IS NULL                THEN 'run_queued_at_missing'
               WHEN r.finished_at_ms IS NOT NULL          THEN 'run_finished_at'
               WHEN r.version <> 2                        THEN 'run_version'
               WHEN r.last_event_seq <> 2                 THEN 'run_last_event_seq'
               WHEN r.updated_at_ms <> r.created_at_ms    THEN 'run_updated'
               WHEN a.id IS NULL                          THEN 'attempt_missing'
               WHEN a.number <> 1                         THEN 'attempt_newer'
               WHEN a.state <> 'claimed'                  THEN 'attempt_state'
               WHEN a.executor <> 'remote_worker'         THEN 'attempt_executor'
               WHEN a.worker_id IS NOT NULL               THEN 'attempt_worker_id'
               WHEN a.session_id IS NOT NULL              THEN 'attempt_session_id'
               WHEN a.lease_token_sha256 IS NOT NULL      THEN 'attempt_lease_token'
               WHEN a.lease_version IS NOT NULL           THEN 'attempt_lease_version'
               WHEN a.lease_expires_at_ms IS NOT NULL     THEN 'attempt_lease_expires_at'
               WHEN a.offer_id IS NOT NULL                THEN 'attempt_offer_id'
               WHEN a.offered_at_ms IS NOT NULL           THEN 'attempt_offered_at'
               WHEN a.offer_acked_at_ms IS NOT NULL       THEN 'attempt_offer_acked_at'
               WHEN a.callback_token_sha256 IS NOT NULL   THEN 'attempt_callback_token'
               WHEN a.last_callback_seq IS NOT NULL       THEN 'attempt_last_callback_seq'
               WHEN a.last_callback_at_ms IS NOT NULL     THEN 'attempt_last_callback_at'
               WHEN a.deadline_at_ms IS NOT NULL          THEN 'attempt_deadline_at'
               WHEN a.available_at_ms IS NOT NULL         THEN 'attempt_available_at'
               WHEN a.started_at_ms IS NOT NULL           THEN 'attempt_started_at'
               WHEN a.finished_at_ms IS NOT NULL          THEN 'attempt_finished_at'
               WHEN a.exit_code IS NOT NULL               THEN 'attempt_exit_code'
               WHEN a.result_code IS NOT NULL             THEN 'attempt_result_code'
               WHEN a.error_code IS NOT NULL              THEN 'attempt_error_code'
               WHEN a.error_message IS NOT NULL           THEN 'attempt_error_message'
               WHEN a.log_path IS NOT NULL                THEN 'attempt_log_path'
               WHEN a.log_bytes <> 0                      THEN 'attempt_log_bytes'
               WHEN a.log_truncated                       THEN 'attempt_log_truncated'
               WHEN a.updated_at_ms <> a.created_at_ms    THEN 'attempt_updated'
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
