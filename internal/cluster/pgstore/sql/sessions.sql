-- Console sessions (sessions.go), runtime role. A row holds the digest of
-- the cookie's token, never the token.

-- name: ConsoleSessionDeleteExpired
-- Deletes at most $2 sessions expired by $1, the oldest expiries first;
-- SKIP LOCKED lets two sign-ins on two replicas share the work.
DELETE FROM qinglong.console_sessions
 WHERE digest IN (SELECT digest FROM qinglong.console_sessions WHERE expires_at_ms <= $1
                   ORDER BY expires_at_ms LIMIT $2 FOR UPDATE SKIP LOCKED)

-- name: ConsoleSessionEvict
-- Ends a principal's oldest sessions so that $2 remain, before its new one
-- is stored (the bound of sessions per user or token).
DELETE FROM qinglong.console_sessions
 WHERE digest IN (SELECT digest FROM qinglong.console_sessions WHERE principal = $1
                   ORDER BY created_at_ms DESC, digest OFFSET $2)

-- name: ConsoleSessionInsert
-- Stores a console session.
INSERT INTO qinglong.console_sessions (digest, principal, user_id, password_stamp, token_digest, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)

-- name: ConsoleSessionByDigest
-- The console session of a cookie's token digest.
SELECT user_id::text, password_stamp, token_digest, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms
  FROM qinglong.console_sessions WHERE digest = $1

-- name: ConsoleSessionSeen
-- Records a session's use at $2, only when the last one written is at
-- least $3 ms older: browsing writes at most once per that interval.
UPDATE qinglong.console_sessions SET last_seen_at_ms = $2 WHERE digest = $1 AND last_seen_at_ms <= $2::bigint - $3::bigint

-- name: ConsoleSessionEnd
-- Ends a console session (sign-out, or one found expired or no longer
-- allowed).
DELETE FROM qinglong.console_sessions WHERE digest = $1

-- name: ConsoleSessionEndOthers
-- Ends every session of a principal but one (a password change from the
-- console keeps the browser that made it).
DELETE FROM qinglong.console_sessions WHERE principal = $1 AND digest <> $2
