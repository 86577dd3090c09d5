-- The rows a clock that went back may have left ahead
-- (schedule.Reanchorer): an enabled trigger's row with a cursor that was
-- last written at a time later than ?, the store's clock now; paused,
-- ended and archived projects' rows included, since each falls due again
-- only once its cursor is where a decision made now would put it. Read as
-- the take reads its tickets, so the check decides from the same snapshot.
-- No index serves updated_at_ms: every commit rewrites it, and one scan of
-- the schedule rows per check (schedule.ClockCheckEvery) costs less than
-- an index every commit would update.
SELECT s.project_id, s.trigger_id, s.trigger_revision, r.content_digest, r.created_at_ms,
       r.expression, r.timezone, r.misfire_policy, r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy, r.task_id, r.task_revision, r.task_content_digest,
       s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version, s.paused_at_ms, s.resumed_at_ms
FROM trigger_schedules s
JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
WHERE s.enabled = 1 AND s.next_fire_at_ms IS NOT NULL AND s.updated_at_ms > ?
ORDER BY s.project_id, s.trigger_id
