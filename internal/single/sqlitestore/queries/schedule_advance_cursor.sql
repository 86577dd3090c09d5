-- Stores a cursor without a Run (initialise or misfire skip), guarded by the
-- same fence; last_scheduled_at_ms changes only on admit. ?7 is the new
-- cursor's jitter (NULL: the row ended).
UPDATE trigger_schedules
SET next_fire_at_ms = ?1, state_version = state_version + 1, updated_at_ms = ?2, due_offset_ms = ?7
WHERE trigger_id = ?3 AND trigger_revision = ?4 AND state_version = ?5 AND next_fire_at_ms IS ?6
