-- The overview's backlog for a console user bound to projects: the due
-- rows of monitor_backlog of the projects ?3 names (a JSON array) alone,
-- filtered before the count is cut at ?2, so the count is of the user's
-- projects whatever other projects have due. It starts from those
-- projects (by name) and reads their triggers' schedule rows (the
-- triggers' (project_id, name) key, then each row by its trigger), never
-- the due index, whose other projects' rows it would have to walk past:
-- its cost grows with the user's projects' triggers, never with the rest
-- of the installation's backlog.
SELECT count(*), min(due_at_ms) FROM (
  SELECT s.next_fire_at_ms + s.due_offset_ms AS due_at_ms
  FROM projects p
  CROSS JOIN triggers t ON t.project_id = p.id
  CROSS JOIN trigger_schedules s ON s.trigger_id = t.id
  CROSS JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
  CROSS JOIN tasks k ON k.id = r.task_id
  WHERE p.name IN (SELECT value FROM json_each(?3)) AND p.status = 'active'
    AND s.enabled = 1 AND s.paused = 0 AND (s.next_fire_at_ms IS NULL OR s.due_offset_ms IS NOT NULL) AND s.next_fire_at_ms + s.due_offset_ms <= ?1
    AND r.enabled = 1 AND t.current_revision = s.trigger_revision
    AND k.current_revision = r.task_revision
  ORDER BY s.next_fire_at_ms + s.due_offset_ms
  LIMIT ?2
)
