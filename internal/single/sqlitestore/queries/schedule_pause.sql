-- Pauses a trigger's schedule row: no take returns it until it is resumed.
-- state_version is bumped, so a ticket taken before can never commit. A
-- pause that follows a resume no decision has yet moved the cursor past
-- keeps the earlier pause's start: the occurrences of both stay recorded
-- as paused (what is shown as the pause's time is its audit record's,
-- trigger_detail.sql). Touches nothing when already paused. updated_at_ms never
-- moves back: a pause decides no cursor, so a row whose cursor a later
-- clock worked out stays found by the clock check (schedule_reanchor_read).
UPDATE trigger_schedules
SET paused = 1, pause_note = ?2,
    paused_at_ms = CASE WHEN resumed_at_ms IS NOT NULL AND next_fire_at_ms IS NOT NULL AND next_fire_at_ms < resumed_at_ms
                        THEN paused_at_ms ELSE ?3 END,
    resumed_at_ms = NULL,
    state_version = state_version + 1, updated_at_ms = max(updated_at_ms, ?3)
WHERE trigger_id = ?1 AND paused = 0
