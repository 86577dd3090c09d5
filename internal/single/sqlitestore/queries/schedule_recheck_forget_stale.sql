-- Ends the waits schedule_recheck_stale counts (the same ?1 and ?2): the
-- next take reads those rows again, and a row still unreadable is put
-- aside anew from now. No fence: a wait decides nothing and changes nothing
-- a commit verifies (schedule_recheck_later).
UPDATE trigger_schedules SET recheck_at_ms = NULL, recheck_state_version = NULL WHERE recheck_at_ms > ?1 + ?2
