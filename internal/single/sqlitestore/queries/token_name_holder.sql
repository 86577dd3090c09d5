-- The expiry of the unrevoked token holding a name, read when a create of
-- that name met the partial unique index (api_tokens_active_name): an
-- expired token holds its name until revoked, and the refusal says so.
SELECT expires_at_ms FROM api_tokens WHERE name = ?1 AND revoked_at_ms IS NULL
