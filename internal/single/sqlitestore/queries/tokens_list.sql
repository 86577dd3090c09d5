-- Every token by name, newest first within a name; never the digest.
SELECT id, name, scope, created_at_ms, expires_at_ms, revoked_at_ms, last_used_at_ms, projects
  FROM api_tokens
 ORDER BY name, created_at_ms DESC, id
