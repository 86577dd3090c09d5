-- Disables an account; its sessions end on their next request.
UPDATE console_users SET disabled_at_ms = coalesce(disabled_at_ms, max(?2, created_at_ms)) WHERE name = ?1
