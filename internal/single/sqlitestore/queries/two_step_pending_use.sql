-- The once-only fence of a second step: deletes it only while it has not
-- ended by ?2; no row for a ticket used already (by another request) or
-- ended.
DELETE FROM console_two_step_pending WHERE digest = ?1 AND expires_at_ms > ?2
