-- Project deletion, under the write lock: the live API tokens (neither
-- revoked nor expired by ?2) bound to the project named ?1. A deletion
-- refuses them: the freed name would give a token a project created later.
SELECT name FROM api_tokens
WHERE revoked_at_ms IS NULL AND (expires_at_ms IS NULL OR expires_at_ms > ?2)
  AND instr(',' || projects || ',', ',' || ?1 || ',') > 0
ORDER BY name
