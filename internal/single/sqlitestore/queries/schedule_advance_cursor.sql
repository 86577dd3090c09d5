-- Stores a cursor without a Run (initialise or misfire skip), guarded by the
-- same fence; last_scheduled_at_ms changes only on admit.
UPDATE trigger_schedules
SET next_fire_at_ms = ?1, state_version = state_version + 1, updated_at_ms = ?2
WHERE trigger_id = ?3 AND trigger_revision = ?4 AND state_version = ?5 AND next_fire_at_ms IS ?6
