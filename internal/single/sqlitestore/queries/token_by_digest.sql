-- The token a request presents, found by its digest (unique index).
SELECT id, name, scope, created_at_ms, expires_at_ms, revoked_at_ms, last_used_at_ms, projects
  FROM api_tokens
 WHERE digest = ?1
