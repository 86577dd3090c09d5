-- The console session of a cookie's token digest.
SELECT user_id, password_stamp, token_digest, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms
  FROM console_sessions WHERE digest = ?1
