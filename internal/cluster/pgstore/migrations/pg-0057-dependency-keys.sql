-- pg-0057: the Idempotency-Keys of dependencies changes over the API
-- (deps.Keys; sql/dependency_keys.sql): one row per caller and key,
-- holding the SHA-256 of the route and body first sent with it and, once
-- made, the change's Run, so that the change asked again answers that Run
-- from whichever server the retry reaches, rather than install or remove
-- twice. A row is claimed ('' run_id) before the change is made; a refused
-- change deletes its claim. Rows go a day after their claim on the
-- database's clock, deleted by the claims of new keys through the claim
-- index.
CREATE TABLE qinglong.dependency_keys (
    actor         text   NOT NULL,
    idem_key      text   NOT NULL,
    digest        bytea  NOT NULL CHECK (length(digest) = 32),
    run_id        text   NOT NULL DEFAULT '',
    claimed_at_ms bigint NOT NULL,
    PRIMARY KEY (actor, idem_key)
);

CREATE INDEX dependency_keys_claimed ON qinglong.dependency_keys (claimed_at_ms);
