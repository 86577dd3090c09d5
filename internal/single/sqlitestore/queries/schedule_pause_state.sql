-- A trigger's pause state, read under the write lock before a pause or a
-- resume (to tell a no-op from a change) and after it. The pause's time is
-- the newest pause's audit record's (written in the pause's transaction),
-- as trigger_detail.sql shows it: paused_at_ms may keep an earlier pause's
-- start for the ledger (schedule_pause.sql).
SELECT s.paused, s.pause_note,
       coalesce((SELECT a.at_ms FROM trigger_schedule_audit a WHERE a.trigger_id = s.trigger_id AND a.action = 'pause' ORDER BY a.id DESC LIMIT 1), s.paused_at_ms),
       s.resumed_at_ms, s.paused_with_project
FROM trigger_schedules s WHERE s.trigger_id = ?
