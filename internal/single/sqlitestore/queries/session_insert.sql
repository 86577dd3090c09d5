-- Stores a console session (sessions.go): the key is the digest of the
-- cookie's token, never the token.
INSERT INTO console_sessions (digest, principal, user_id, password_stamp, token_digest, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9)
