-- Monitoring's view of the schedule, read every few seconds: the due rows
-- a take would return (the same eligibility as schedule_take_due), counted
-- up to a limit, and the oldest due time among them. It walks the due index
-- in due order from its start and stops at the limit, so its cost is
-- bounded like a take's, whatever the table holds.
SELECT count(*), min(due_at_ms) FROM (
  SELECT s.next_fire_at_ms + s.due_offset_ms AS due_at_ms
  FROM trigger_schedules s
  CROSS JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
  CROSS JOIN triggers t ON t.id = s.trigger_id
  CROSS JOIN projects p ON p.id = s.project_id
  CROSS JOIN tasks k ON k.id = r.task_id
  WHERE s.enabled = 1 AND s.paused = 0 AND (s.next_fire_at_ms IS NULL OR s.due_offset_ms IS NOT NULL) AND s.next_fire_at_ms + s.due_offset_ms <= ?
    AND r.enabled = 1 AND t.current_revision = s.trigger_revision
    AND p.status = 'active' AND k.current_revision = r.task_revision
  ORDER BY s.next_fire_at_ms + s.due_offset_ms
  LIMIT ?
)
