-- A row whose stored cron this host cannot read (a zone its zone database
-- lacks, a cron that no longer parses) fails every decision the scheduler
-- makes about it and never moves its cursor, so it stays due at the head of
-- the claim order: a page of such rows would be taken again every round and
-- no row due after them would ever be admitted. The scheduler records, in
-- the same state, that it could not read the row and when to look again:
-- until recheck_at_ms the take passes over it, but only while the row still
-- has the state version the failure was recorded at (recheck_state_version),
-- so any write that changes the row — a republish, a pause, a commit of
-- another process — ends the wait at once without clearing it.
ALTER TABLE trigger_schedules ADD COLUMN recheck_at_ms INTEGER;
ALTER TABLE trigger_schedules ADD COLUMN recheck_state_version INTEGER;
