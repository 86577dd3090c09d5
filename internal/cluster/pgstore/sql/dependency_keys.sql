-- The Idempotency-Keys of dependencies changes (dependency_keys.go),
-- runtime role. Every time of one is the database's clock, so a server
-- whose own clock is off neither lengthens nor shortens a key's day or
-- its claim's lease.

-- name: DependencyKeyDeleteExpired
-- Deletes at most $2 keys claimed $1 ms ago or earlier (their lifetime
-- over), the oldest first, at each new claim. No FOR UPDATE: two claims
-- at once may pick the same rows, and the second waits the first's short
-- transaction out, then finds them gone.
DELETE FROM qinglong.dependency_keys
 WHERE (actor, idem_key) IN (SELECT actor, idem_key FROM qinglong.dependency_keys
                              WHERE claimed_at_ms <= (SELECT {{now_ms}}) - $1::bigint
                              ORDER BY claimed_at_ms LIMIT $2)

-- name: DependencyKeyClaim
-- The once-per-key fence of a dependencies change, on every server:
-- claims actor $1's key $2 for the change of digest $3, a change to make.
-- A key kept already is claimed again only when its change never said how
-- it ended (run_id ''), was claimed $4 ms ago or earlier (its lease over)
-- and was asked with the same digest; otherwise no row changes and the
-- caller reads the key's row (the conflicting insert waits for a claim
-- not yet committed, so of two at once exactly one claims).
INSERT INTO qinglong.dependency_keys AS k (actor, idem_key, digest, run_id, claimed_at_ms)
SELECT $1, $2, $3, '', n.ms
  FROM (SELECT {{now_ms}} AS ms) n
ON CONFLICT (actor, idem_key) DO UPDATE SET claimed_at_ms = excluded.claimed_at_ms
 WHERE k.run_id = '' AND k.digest = excluded.digest AND k.claimed_at_ms <= excluded.claimed_at_ms - $4::bigint

-- name: DependencyKeyOf
-- A kept key's change, read by a claim that did not take it: the digest
-- asked first, and its Run ('' while being made).
SELECT digest, run_id FROM qinglong.dependency_keys WHERE actor = $1 AND idem_key = $2

-- name: DependencyKeyDone
-- Records the Run of the change that claimed actor $1's key $2.
UPDATE qinglong.dependency_keys SET run_id = $3 WHERE actor = $1 AND idem_key = $2 AND run_id = ''

-- name: DependencyKeyForget
-- Deletes actor $1's key $2 while its change is not done: a refused change
-- leaves no key, so a retry tries again; a done one is never deleted here.
DELETE FROM qinglong.dependency_keys WHERE actor = $1 AND idem_key = $2 AND run_id = ''
