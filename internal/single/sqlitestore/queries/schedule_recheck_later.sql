-- Passes a row this host could not read over until ? (recheck_at_ms), for
-- the take (migration 0022). Fence: the state_version CAS of the ticket
-- that failed — a row that changed since the take (republished, paused,
-- decided by another process) keeps no wait, since its new state may read.
-- The row's version is not bumped: the wait decides nothing and changes
-- nothing a commit verifies, so a ticket of the same state still commits.
UPDATE trigger_schedules SET recheck_at_ms = ?, recheck_state_version = state_version
WHERE trigger_id = ? AND state_version = ?
