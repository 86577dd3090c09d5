-- Moves back the cursor of a row a clock that went back left ahead
-- (?1, with its jitter ?2; schedule.ReanchorTicket) at the store's clock
-- now (?3). Fence: the revision and state_version the check read the row
-- with — a row published, paused, resumed or decided since is left to the
-- next check, which reads it again. The version is bumped, so no ticket
-- read before the move commits against the moved cursor.
UPDATE trigger_schedules
SET next_fire_at_ms = ?1, due_offset_ms = ?2, state_version = state_version + 1, updated_at_ms = ?3
WHERE trigger_id = ?4 AND trigger_revision = ?5 AND state_version = ?6
