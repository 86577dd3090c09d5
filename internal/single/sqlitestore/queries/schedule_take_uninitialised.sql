-- A paused row is never taken (its last pause span rides on the ticket).
-- One page of uninitialised schedule rows (NULL cursor), which sort first in
-- the claim order, then by project and trigger. Only rows that can schedule
-- qualify: active project, the trigger's current and enabled revision,
-- pinned to its task's current revision. Reads the due index in order and
-- stops at the limit: its leading expression (the due time) is NULL for
-- every such row, so project and trigger are its order. A row this host
-- could not read waits out its recheck (?, the observation time;
-- schedule_recheck_later) like a due one: one published by a server with a
-- newer zone database is uninitialised here.
SELECT s.project_id, s.trigger_id, s.trigger_revision, r.content_digest, r.created_at_ms,
       r.expression, r.timezone, r.misfire_policy, r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy, r.task_id, r.task_revision, r.task_content_digest,
       s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version, s.paused_at_ms, s.resumed_at_ms
FROM trigger_schedules s
CROSS JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
CROSS JOIN triggers t ON t.id = s.trigger_id
CROSS JOIN projects p ON p.id = s.project_id
CROSS JOIN tasks k ON k.id = r.task_id
WHERE s.enabled = 1 AND s.paused = 0 AND (s.next_fire_at_ms IS NULL OR s.due_offset_ms IS NOT NULL) AND s.next_fire_at_ms + s.due_offset_ms IS NULL
  AND s.next_fire_at_ms IS NULL
  AND r.enabled = 1 AND t.current_revision = s.trigger_revision
  AND p.status = 'active' AND k.current_revision = r.task_revision
  AND (s.recheck_at_ms IS NULL OR s.recheck_at_ms <= ? OR s.recheck_state_version <> s.state_version)
ORDER BY s.project_id, s.trigger_id
LIMIT ?
