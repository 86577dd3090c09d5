-- Revokes the unrevoked token of a name, expired or not (an expired one
-- holds its name until revoked); authentication refuses it from the next
-- request on. Returns its digest, whose console sessions tokens.go ends in
-- the same transaction, and its id for the audit record; nothing when
-- there is none.
UPDATE api_tokens SET revoked_at_ms = max(?2, created_at_ms) WHERE name = ?1 AND revoked_at_ms IS NULL RETURNING digest, id
