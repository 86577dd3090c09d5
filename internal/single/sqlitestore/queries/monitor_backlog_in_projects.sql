-- The overview's backlog for a console user bound to projects: the due
-- rows of monitor_backlog of the projects ?3 names (a JSON array) alone,
-- filtered before the count is cut at ?2, so the count is of the user's
-- projects whatever other projects have due. It walks the due index in due
-- order as monitor_backlog does, past the other projects' due rows, so
-- its cost grows with the installation's backlog, within the request's
-- time.
SELECT count(*), min(due_at_ms) FROM (
  SELECT s.next_fire_at_ms + s.due_offset_ms AS due_at_ms
  FROM trigger_schedules s
  CROSS JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
  CROSS JOIN triggers t ON t.id = s.trigger_id
  CROSS JOIN projects p ON p.id = s.project_id
  CROSS JOIN tasks k ON k.id = r.task_id
  WHERE s.enabled = 1 AND s.paused = 0 AND (s.next_fire_at_ms IS NULL OR s.due_offset_ms IS NOT NULL) AND s.next_fire_at_ms + s.due_offset_ms <= ?1
    AND r.enabled = 1 AND t.current_revision = s.trigger_revision
    AND p.status = 'active' AND k.current_revision = r.task_revision
    AND p.name IN (SELECT value FROM json_each(?3))
  ORDER BY s.next_fire_at_ms + s.due_offset_ms
  LIMIT ?2
)
