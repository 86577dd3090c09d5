-- Revokes the active token of a name; authentication refuses it from the
-- next request on.
UPDATE api_tokens SET revoked_at_ms = max(?2, created_at_ms) WHERE name = ?1 AND revoked_at_ms IS NULL
