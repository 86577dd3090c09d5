-- How many schedule rows of a project stay paused on their own once its
-- pause is resumed.
SELECT count(*) FROM trigger_schedules WHERE project_id = ? AND paused = 1 AND paused_with_project = 0
