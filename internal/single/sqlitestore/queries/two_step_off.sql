-- Turns two-step off, its recovery codes deleted with it (ON DELETE
-- CASCADE); no row when it is not on.
DELETE FROM console_two_step WHERE user_id = ?1 AND enabled_at_ms IS NOT NULL
