-- name: CommitLock
-- Admission step 1 (docs/architecture.md, "Admission"): lock the schedule row and sample the database
-- clock in the same statement, reading every fact the verification needs:
-- project status, trigger head and revision, task head and pinned revision,
-- the schedule's revision/state/cursor/claim and the pinned remote_worker
-- execution revision (NULL columns when missing: admission fails closed).
-- Runs in the REPEATABLE READ transaction the caller began (admission.sql
-- says why not SERIALIZABLE), with one snapshot for the whole admission.
-- Only the schedule row is locked, and that is enough to keep the verdict
-- true until COMMIT: the revision rows are immutable, and the only mutable
-- facts read (project status, trigger head revision, task head revision)
-- are exactly the inputs of the row's eligibility. A publish can turn an
-- admit into anything else only by making an eligible row ineligible, and
-- every publish that can do so writes that row in its own transaction (a
-- new trigger revision resets it, SchedulesUpsert; an archived project or
-- a new task revision flips its schedulable flag, eligibility.go): it
-- either committed before this snapshot (the facts show it), or after it
-- (FOR UPDATE fails with 40001 and the admission is retried from scratch),
-- or it waits on this row lock and commits after the admission.
-- Under an overlap policy it also reads the trigger's unfinished Runs (NULL
-- without one): every admission of a trigger writes this row, so the
-- snapshot, taken by this statement and then locked, holds every Run
-- admitted before; a Run that finishes after the snapshot still reads as
-- unfinished, which can only pass an occurrence over, never admit a second
-- one (docs/architecture.md, "Overlap"). Under queue_one it also reads the
-- newest of them that has not started (NULL none): queued (or being
-- created) with only its first attempt, which never started, so a Run queued again to retry or after it was lost does not
-- count; queue_one admits no second such Run. The partial predicate is
-- repeated so that the probe reads runs_unfinished_trigger_idx.
-- The row is addressed by ctid (see handles.go) and must still carry the
-- trigger id; no row means the row version moved since the take.
-- $1 trigger id, $2 ctid of the claimed row version.
WITH now AS MATERIALIZED (
    SELECT {{now_ms}} AS ms
)
SELECT now.ms, s.ctid,
       s.project_id, s.trigger_revision, s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version,
       s.claim_owner, s.claim_token, s.claim_version, s.claim_expires_at_ms, s.updated_at_ms,
       s.paused, s.paused_at_ms, s.resumed_at_ms,
       p.status,
       tg.current_revision, tg.task_id,
       tr.task_id, tr.task_revision, tr.task_content_digest, tr.name, tr.enabled, tr.kind,
       tr.cron_expression, tr.cron_timezone, tr.misfire_policy, tr.content_digest, tr.created_at_ms,
       tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
       tk.current_revision,
       tkr.project_id, tkr.name, tkr.enabled, tkr.labels, tkr.command, tkr.content_digest,
       er.id, er.project_id, er.task_content_digest, er.executor, er.command, er.digest,
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
  FROM now
 CROSS JOIN qinglong.trigger_schedules s
  JOIN qinglong.projects p ON p.id = s.project_id
  JOIN qinglong.triggers tg ON tg.id = s.trigger_id
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
  JOIN qinglong.tasks tk ON tk.id = tr.task_id
  JOIN qinglong.task_revisions tkr ON tkr.task_id = tr.task_id AND tkr.revision = tr.task_revision
  LEFT JOIN qinglong.execution_revisions er
         ON er.task_id = tr.task_id AND er.task_revision = tr.task_revision AND er.executor = 'remote_worker'
 WHERE s.ctid = $2::tid AND s.trigger_id = $1
   FOR UPDATE OF s
