-- Resumes a paused trigger's schedule row; its pause span (paused_at_ms,
-- resumed_at_ms) stays for the next decision, which records what fell due
-- in it as paused. state_version is bumped like every writer's. Touches
-- nothing when not paused. updated_at_ms never moves back, as in
-- schedule_pause.sql. A resume ends a project's pause of the row as well.
UPDATE trigger_schedules
SET paused = 0, paused_with_project = 0, resumed_at_ms = ?2, state_version = state_version + 1, updated_at_ms = max(updated_at_ms, ?2)
WHERE trigger_id = ?1 AND paused = 1
