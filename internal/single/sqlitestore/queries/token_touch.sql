-- Records a token's use; the time never moves back.
UPDATE api_tokens SET last_used_at_ms = ?2 WHERE id = ?1 AND (last_used_at_ms IS NULL OR last_used_at_ms < ?2)
