-- Ends every session of a principal but one (a password change from the
-- console keeps the browser that made it).
DELETE FROM console_sessions WHERE principal = ?1 AND digest <> ?2
