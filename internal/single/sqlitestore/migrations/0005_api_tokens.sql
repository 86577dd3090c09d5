-- API tokens: the secret is never stored, only its SHA-256 (digest). A
-- revoked token keeps its row (and its last use) for the record; its name
-- may be given to a new token, so at most one unrevoked token holds a name.
CREATE TABLE api_tokens (
    id              TEXT    NOT NULL PRIMARY KEY,
    name            TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    scope           TEXT    NOT NULL CHECK (scope IN ('read', 'operate', 'admin')),
    digest          BLOB    NOT NULL UNIQUE CHECK (length(digest) = 32),
    created_at_ms   INTEGER NOT NULL CHECK (created_at_ms >= 0),
    expires_at_ms   INTEGER CHECK (expires_at_ms > created_at_ms),
    revoked_at_ms   INTEGER CHECK (revoked_at_ms >= created_at_ms),
    last_used_at_ms INTEGER CHECK (last_used_at_ms >= 0)
) STRICT;
CREATE UNIQUE INDEX api_tokens_active_name ON api_tokens (name) WHERE revoked_at_ms IS NULL;
