-- Starts a trigger's schedule at a position handed over from another
-- database (?2, the cursor; ?3, its jitter) at the store's clock ?4, after
-- schedule_adopt_read found that the row decided nothing here, in the
-- same write transaction. state_version is bumped like every writer's, so
-- no ticket taken before commits against the adopted cursor; the pause
-- state is left as it is; the position is kept in adopted_cursor_ms. updated_at_ms never moves back (as a pause).
UPDATE trigger_schedules
SET next_fire_at_ms = ?2, due_offset_ms = ?3, adopted_cursor_ms = ?2, state_version = state_version + 1, updated_at_ms = max(updated_at_ms, ?4)
WHERE trigger_id = ?1 AND last_scheduled_at_ms IS NULL
