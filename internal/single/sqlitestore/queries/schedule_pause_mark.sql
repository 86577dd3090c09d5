-- Marks the pause a project's pause just gave a schedule row as the
-- project's, so that the project's resume resumes it.
UPDATE trigger_schedules SET paused_with_project = 1 WHERE trigger_id = ?1 AND paused = 1
