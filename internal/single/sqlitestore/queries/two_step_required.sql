-- Whether two-step sign-in is required of every user: the one row
-- migration 0054 inserted.
SELECT two_step_required FROM console_settings WHERE id = 1
