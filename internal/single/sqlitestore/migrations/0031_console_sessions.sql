-- Console sessions (docs/console.md, "Signing in"): one row per signed-in
-- browser, so that a session outlives a restart of the server. The row is
-- keyed by the SHA-256 of the cookie's random token, never the token. A
-- user's session names the account and the stamp of the password it signed
-- in with; a token's session the token's digest. Neither is a credential:
-- every request looks the user or token up again. There is no foreign key
-- to console_users: deleting an account ends its sessions by that lookup,
-- and the rows go at their expiry.
CREATE TABLE console_sessions (
  digest          BLOB    PRIMARY KEY CHECK (length(digest) = 32),
  principal       TEXT    NOT NULL CHECK (length(principal) BETWEEN 1 AND 200),
  user_id         TEXT,
  password_stamp  TEXT,
  token_digest    BLOB,
  name            TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
  scope           TEXT    NOT NULL CHECK (scope IN ('read', 'operate', 'admin')),
  created_at_ms   INTEGER NOT NULL,
  last_seen_at_ms INTEGER NOT NULL,
  expires_at_ms   INTEGER NOT NULL CHECK (expires_at_ms > created_at_ms),
  CHECK ((user_id IS NULL) = (token_digest IS NOT NULL))
) STRICT, WITHOUT ROWID;

CREATE INDEX console_sessions_principal ON console_sessions (principal, created_at_ms);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at_ms);
