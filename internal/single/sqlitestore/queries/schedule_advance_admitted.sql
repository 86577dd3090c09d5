-- Advances the cursor after an admit, guarded by the whole local fence
-- (revision, state_version, cursor): zero rows means another writer won and
-- the whole admission rolls back. ?8 is the new cursor's jitter (NULL: the
-- row ended). The last admitted occurrence never moves back
-- (schedule.LastAdmitted): after a clock that went back, an admission
-- behind a moved-back cursor keeps the later ones in view.
UPDATE trigger_schedules
SET next_fire_at_ms = ?1, last_scheduled_at_ms = coalesce(max(last_scheduled_at_ms, ?2), ?2), state_version = state_version + 1, updated_at_ms = ?3, due_offset_ms = ?8
WHERE trigger_id = ?4 AND trigger_revision = ?5 AND state_version = ?6 AND next_fire_at_ms IS ?7
