-- A trigger's pause state, read under the write lock before a pause or a
-- resume (to tell a no-op from a change) and after it.
SELECT paused, pause_note, paused_at_ms, resumed_at_ms FROM trigger_schedules WHERE trigger_id = ?
