-- Console sessions (docs/console.md, "Signing in"): one row per signed-in
-- browser, so that a session made on one replica works on every replica
-- and outlives a restart. The row is keyed by the SHA-256 of the cookie's
-- random token, never the token. A user's session names the account and
-- the stamp of the password it signed in with; a token's session the
-- token's digest. Neither is a credential: every request looks the user or
-- token up again, so the runtime role, which alone writes this table, can
-- never make an account or a token by writing a row. There is no foreign
-- key to console_users: the admin role deletes accounts, and a deleted
-- account's sessions end by that lookup; the rows go at their expiry.
CREATE TABLE qinglong.console_sessions (
    digest          bytea  NOT NULL PRIMARY KEY CHECK (length(digest) = 32),
    principal       text   NOT NULL CHECK (length(principal) BETWEEN 1 AND 200),
    user_id         uuid,
    password_stamp  text,
    token_digest    bytea,
    name            text   NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    scope           text   NOT NULL CHECK (scope IN ('read', 'operate', 'admin')),
    created_at_ms   bigint NOT NULL CHECK (created_at_ms >= 0),
    last_seen_at_ms bigint NOT NULL CHECK (last_seen_at_ms >= created_at_ms),
    expires_at_ms   bigint NOT NULL CHECK (expires_at_ms > created_at_ms),
    CHECK ((user_id IS NULL) = (token_digest IS NOT NULL))
);

CREATE INDEX console_sessions_principal ON qinglong.console_sessions (principal, created_at_ms);
CREATE INDEX console_sessions_expiry ON qinglong.console_sessions (expires_at_ms);
