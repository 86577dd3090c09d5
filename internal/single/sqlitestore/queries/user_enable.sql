-- Enables an account again with a new password hash, in one statement: the
-- new hash changes the password stamp, so a session signed in before the
-- account was disabled, and never asked since, stays ended. Returns its id
-- for the audit record; nothing when there is none.
UPDATE console_users SET disabled_at_ms = NULL, password_hash = ?2 WHERE name = ?1 RETURNING id
