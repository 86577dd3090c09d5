-- Replaces an account's password hash.
UPDATE console_users SET password_hash = ?2 WHERE name = ?1
