-- The once-per-key fence of a dependencies change: claims actor ?1's key
-- ?2 for the change of digest ?3 at ?4, a change to make. A key kept
-- already is claimed again only when its change never said how it ended
-- (run_id ''), was claimed at or before ?5 (its lease over) and was asked
-- with the same digest; otherwise no row changes and the caller reads the
-- key's row.
INSERT INTO dependency_keys (actor, idem_key, digest, run_id, claimed_at_ms)
VALUES (?1, ?2, ?3, '', ?4)
ON CONFLICT (actor, idem_key) DO UPDATE SET claimed_at_ms = excluded.claimed_at_ms
 WHERE dependency_keys.run_id = '' AND dependency_keys.digest = excluded.digest AND dependency_keys.claimed_at_ms <= ?5
