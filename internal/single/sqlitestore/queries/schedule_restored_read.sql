-- The rows a server started on a backup's copy with `--after-restore
-- skip-missed` passes over up to ?1, the store's clock now: every row the
-- scheduler's take would find due by then (schedule_take_due's
-- eligibility: enabled, not paused, current revisions, active project),
-- whatever its jitter. Read once per restore, so a scan of the schedule
-- rows is fine.
SELECT s.project_id, s.trigger_id, s.trigger_revision, r.content_digest, r.created_at_ms,
       r.expression, r.timezone, r.misfire_policy, r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy, r.task_id, r.task_revision, r.task_content_digest,
       s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version, s.paused_at_ms, s.resumed_at_ms
FROM trigger_schedules s
CROSS JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
CROSS JOIN triggers t ON t.id = s.trigger_id
CROSS JOIN projects p ON p.id = s.project_id
CROSS JOIN tasks k ON k.id = r.task_id
WHERE s.enabled = 1 AND s.paused = 0 AND s.next_fire_at_ms IS NOT NULL AND s.next_fire_at_ms <= ?1
  AND r.enabled = 1 AND t.current_revision = s.trigger_revision
  AND p.status = 'active' AND k.current_revision = r.task_revision
ORDER BY s.project_id, s.trigger_id
