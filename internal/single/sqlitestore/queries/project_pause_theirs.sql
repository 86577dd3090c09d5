-- The schedule rows of a project whose pause in force is the project's,
-- which its resume resumes, in trigger order.
SELECT trigger_id FROM trigger_schedules WHERE project_id = ? AND paused = 1 AND paused_with_project = 1 ORDER BY trigger_id
