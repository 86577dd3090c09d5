-- Moves a reactivated project's row past what fell due while it was
-- archived (recorded in the same transaction), fenced on the state version
-- it was read with, and bumps that version so no ticket taken before the
-- archive can commit after the reactivation. ?3 is the new cursor's jitter
-- (NULL: the row ended).
UPDATE trigger_schedules
SET next_fire_at_ms = ?1, due_offset_ms = ?3, state_version = state_version + 1, updated_at_ms = ?2
WHERE trigger_id = ?4 AND state_version = ?5
