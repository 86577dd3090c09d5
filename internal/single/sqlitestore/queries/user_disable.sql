-- Disables an account (users.go ends its sessions in the same
-- transaction); returns its id, nothing when there is none.
UPDATE console_users SET disabled_at_ms = coalesce(disabled_at_ms, max(?2, created_at_ms)) WHERE name = ?1 RETURNING id
