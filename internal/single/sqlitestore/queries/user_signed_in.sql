-- Records a sign-in; the time never moves back.
UPDATE console_users SET last_signin_at_ms = ?2 WHERE id = ?1 AND (last_signin_at_ms IS NULL OR last_signin_at_ms < ?2)
