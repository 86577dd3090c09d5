-- API tokens (tokens.go). Only a token's SHA-256 is ever written.

-- name: TokenInsert
-- Creates a token (admin role); the partial unique index makes a second
-- active token of the same name a conflict. Returns the creation time.
INSERT INTO qinglong.api_tokens (id, name, scope, digest, created_at_ms, expires_at_ms, projects)
SELECT $1, $2, $3, $4, n.ms, CASE WHEN $5::bigint > 0 THEN n.ms + $5::bigint END, $6::text[]
  FROM (SELECT {{now_ms}} AS ms) n
RETURNING created_at_ms, expires_at_ms

-- name: TokenNameHolder
-- The expiry of the unrevoked token holding a name, and the time now, read
-- when a create of that name met the partial unique index: an expired
-- token holds its name until revoked, and the refusal says so.
SELECT expires_at_ms, {{now_ms}} FROM qinglong.api_tokens WHERE name = $1 AND revoked_at_ms IS NULL

-- name: TokensList
-- Every token by name, newest first within a name, with its last use;
-- never the digest.
SELECT t.id, t.name, t.scope, t.created_at_ms, t.expires_at_ms, t.revoked_at_ms, u.last_used_at_ms, t.projects
  FROM qinglong.api_tokens t
  LEFT JOIN qinglong.api_token_usage u ON u.token_id = t.id
 ORDER BY t.name, t.created_at_ms DESC, t.id

-- name: TokenRevoke
-- Revokes the unrevoked token of a name, expired or not (admin role);
-- returns nothing when there is none, else its digest, whose console
-- sessions tokens.go ends in the same transaction, its id and the time of
-- the revocation for its audit record.
UPDATE qinglong.api_tokens
   SET revoked_at_ms = greatest({{now_ms}}, created_at_ms)
 WHERE name = $1 AND revoked_at_ms IS NULL
RETURNING digest, id, revoked_at_ms

-- name: TokenByDigest
-- The token a request presents, found by its digest (unique index).
SELECT t.id, t.name, t.scope, t.created_at_ms, t.expires_at_ms, t.revoked_at_ms, u.last_used_at_ms, t.projects
  FROM qinglong.api_tokens t
  LEFT JOIN qinglong.api_token_usage u ON u.token_id = t.id
 WHERE t.digest = $1

-- name: TokenTouch
-- Records a token's use (runtime role); the time never moves back.
INSERT INTO qinglong.api_token_usage AS u (token_id, last_used_at_ms) VALUES ($1, $2)
ON CONFLICT (token_id) DO UPDATE SET last_used_at_ms = greatest(u.last_used_at_ms, excluded.last_used_at_ms)
