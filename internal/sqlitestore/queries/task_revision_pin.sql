-- The task revision a trigger revision pins: it must exist, belong to the
-- project, carry the pinned digest, and be enabled if the trigger is.
SELECT project_id, content_digest, enabled FROM task_revisions WHERE task_id = ? AND revision = ?
