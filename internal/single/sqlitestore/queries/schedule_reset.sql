-- Publishing a trigger revision creates or resets its schedule row in the
-- same transaction: the cursor is cleared (re-initialised from the new
-- revision) and state_version is bumped, so no ticket taken before can ever
-- commit against the new revision. A trigger new to a paused project
-- starts paused with it (project_pauses), its pause the project's; an
-- existing row keeps its pause state, whoever's it is.
INSERT INTO trigger_schedules (trigger_id, project_id, trigger_revision, enabled, next_fire_at_ms, last_scheduled_at_ms, state_version, updated_at_ms,
                               paused, paused_with_project, pause_note, paused_at_ms)
SELECT ?1, ?2, ?3, ?4, NULL, NULL, 1, ?5,
       coalesce(pp.paused, 0), coalesce(pp.paused, 0), CASE WHEN pp.paused = 1 THEN pp.note END, CASE WHEN pp.paused = 1 THEN ?5 END
FROM (SELECT 1) LEFT JOIN project_pauses pp ON pp.project_id = ?2
WHERE true
ON CONFLICT (trigger_id) DO UPDATE SET
  trigger_revision = excluded.trigger_revision,
  enabled = excluded.enabled,
  next_fire_at_ms = NULL,
  due_offset_ms = 0,
  state_version = trigger_schedules.state_version + 1,
  updated_at_ms = excluded.updated_at_ms
