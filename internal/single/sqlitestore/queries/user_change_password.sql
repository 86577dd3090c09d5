-- A user's own password change: replaces the hash of an enabled account
-- only while it is still the one whose current password was checked, so a
-- password set, a disable or a delete in between refuses it. Returns the
-- account's name for the audit record; nothing when it refused.
UPDATE console_users SET password_hash = ?3 WHERE id = ?1 AND password_hash = ?2 AND disabled_at_ms IS NULL RETURNING name
