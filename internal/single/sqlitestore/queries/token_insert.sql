-- Creates a token; the partial unique index makes a second active token of
-- the same name a conflict.
INSERT INTO api_tokens (id, name, scope, digest, created_at_ms, expires_at_ms, projects) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
