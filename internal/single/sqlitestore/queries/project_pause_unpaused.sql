-- The schedule rows of a project not paused, which its pause pauses, in
-- trigger order.
SELECT trigger_id FROM trigger_schedules WHERE project_id = ? AND paused = 0 ORDER BY trigger_id
