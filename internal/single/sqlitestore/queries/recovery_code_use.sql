-- Spends a recovery code: deleting its row is what makes it usable once;
-- no row for a code used already or never given.
DELETE FROM console_recovery_codes WHERE user_id = ?1 AND digest = ?2
