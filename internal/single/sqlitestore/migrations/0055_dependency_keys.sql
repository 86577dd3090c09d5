-- The Idempotency-Keys of dependencies changes over the API (deps.Keys):
-- one row per caller and key, holding the SHA-256 of the route and body
-- first sent with it and, once made, the change's Run. A change asked
-- again with the key answers that Run, also after the server restarted,
-- rather than install or remove twice. A row is claimed ('' run_id) before
-- the change is made; a refused change deletes its claim. Rows go a day
-- after their claim on the store's clock, deleted by the claims of new
-- keys through the claim index.
CREATE TABLE dependency_keys (
    actor         TEXT    NOT NULL,
    idem_key      TEXT    NOT NULL,
    digest        BLOB    NOT NULL CHECK (length(digest) = 32),
    run_id        TEXT    NOT NULL DEFAULT '',
    claimed_at_ms INTEGER NOT NULL,
    PRIMARY KEY (actor, idem_key)
) STRICT, WITHOUT ROWID;

CREATE INDEX dependency_keys_claimed ON dependency_keys (claimed_at_ms);
