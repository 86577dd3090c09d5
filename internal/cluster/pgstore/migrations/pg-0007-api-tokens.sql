-- API tokens (docs/operations.md, "API tokens"). Only a token's SHA-256 is
-- stored. The admin role creates and revokes them; the runtime role, which
-- serves the API, reads them to authenticate and records their use in a
-- table of its own, so it can never widen a scope, extend an expiry or
-- undo a revocation. A revoked token keeps its row; its name may be given
-- to a new token, so at most one unrevoked token holds a name.
CREATE TABLE qinglong.api_tokens (
    id            uuid   NOT NULL PRIMARY KEY,
    name          text   NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    scope         text   NOT NULL CHECK (scope IN ('read', 'operate', 'admin')),
    digest        bytea  NOT NULL UNIQUE CHECK (length(digest) = 32),
    created_at_ms bigint NOT NULL CHECK (created_at_ms >= 0),
    expires_at_ms bigint CHECK (expires_at_ms > created_at_ms),
    revoked_at_ms bigint CHECK (revoked_at_ms >= created_at_ms)
);
CREATE UNIQUE INDEX api_tokens_active_name ON qinglong.api_tokens (name) WHERE revoked_at_ms IS NULL;

-- When each token was last used (database time), written by the runtime
-- role at a bounded rate.
CREATE TABLE qinglong.api_token_usage (
    token_id        uuid   NOT NULL PRIMARY KEY REFERENCES qinglong.api_tokens (id),
    last_used_at_ms bigint NOT NULL CHECK (last_used_at_ms >= 0)
);
