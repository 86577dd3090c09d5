-- Console sessions (sessions.go), runtime role. A row holds the digest of
-- the cookie's token, never the token. Every time of a session is the
-- database's clock, so a replica whose own clock is off neither lengthens
-- nor shortens a session.

-- name: ConsoleSessionDeleteExpired
-- Deletes at most $1 sessions expired by now, the oldest expiries first;
-- SKIP LOCKED lets two sign-ins on two replicas share the work.
DELETE FROM qinglong.console_sessions
 WHERE digest IN (SELECT digest FROM qinglong.console_sessions WHERE expires_at_ms <= (SELECT {{now_ms}})
                   ORDER BY expires_at_ms LIMIT $1 FOR UPDATE SKIP LOCKED)

-- name: ConsoleSessionEvict
-- Ends a principal's oldest sessions so that $2 remain, before its new one
-- is stored (the bound of sessions per user or token).
DELETE FROM qinglong.console_sessions
 WHERE digest IN (SELECT digest FROM qinglong.console_sessions WHERE principal = $1
                   ORDER BY created_at_ms DESC, digest OFFSET $2)

-- name: ConsoleSessionInsert
-- Stores a console session signed in now and lasting $8 ms; returns its
-- times.
INSERT INTO qinglong.console_sessions (digest, principal, user_id, password_stamp, token_digest, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms)
SELECT $1, $2, $3, $4, $5, $6, $7, n.ms, n.ms, n.ms + $8::bigint
  FROM (SELECT {{now_ms}} AS ms) n
RETURNING created_at_ms, expires_at_ms

-- name: ConsoleSessionByDigest
-- The console session of a cookie's token digest, with the time now that
-- its expiry is judged by.
SELECT user_id::text, password_stamp, token_digest, name, scope, created_at_ms, last_seen_at_ms, expires_at_ms, {{now_ms}}
  FROM qinglong.console_sessions WHERE digest = $1

-- name: ConsoleSessionSeen
-- Records a session's use now, only when the last one written is at least
-- $2 ms older: browsing writes at most once per that interval.
UPDATE qinglong.console_sessions s SET last_seen_at_ms = n.ms
  FROM (SELECT {{now_ms}} AS ms) n
 WHERE s.digest = $1 AND s.last_seen_at_ms <= n.ms - $2::bigint

-- name: ConsoleSessionEnd
-- Ends a console session (sign-out, or one found expired or no longer
-- allowed).
DELETE FROM qinglong.console_sessions WHERE digest = $1

-- name: ConsoleSessionEndPrincipal
-- Ends every session of a principal (admin role), in the transaction that
-- disables or deletes its user, sets the user's password or revokes its
-- token: the sessions end at once, not at their next request.
DELETE FROM qinglong.console_sessions WHERE principal = $1

-- name: ConsoleSessionEndOthers
-- Ends every session of a principal but one (a password change from the
-- console keeps the browser that made it).
DELETE FROM qinglong.console_sessions WHERE principal = $1 AND digest <> $2
