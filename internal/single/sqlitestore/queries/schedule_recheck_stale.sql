-- Counts the waits of rows this host could not read (schedule_recheck_later)
-- that end more than ?2 (schedule.UnreadableRecheck) after ?1, the store's
-- clock now: no wait is ever that long, so each was written while the clock
-- read later, and would hold its row back until the clock got there again.
SELECT count(*) FROM trigger_schedules WHERE recheck_at_ms > ?1 + ?2
