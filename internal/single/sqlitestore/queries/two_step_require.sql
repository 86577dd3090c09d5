-- Requires two-step sign-in of every user (?1 = 1) or not: no row when
-- it was so already, so an unchanged setting records nothing.
UPDATE console_settings SET two_step_required = ?1 WHERE id = 1 AND two_step_required <> ?1
