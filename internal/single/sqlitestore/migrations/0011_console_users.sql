-- Console user accounts. Only a password's Argon2id hash is stored. A
-- deleted account's row is removed, so its name may be given again.
CREATE TABLE console_users (
    id                TEXT    NOT NULL PRIMARY KEY,
    name              TEXT    NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 128),
    role              TEXT    NOT NULL CHECK (role IN ('viewer', 'operator', 'owner')),
    password_hash     TEXT    NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
    created_at_ms     INTEGER NOT NULL CHECK (created_at_ms >= 0),
    disabled_at_ms    INTEGER CHECK (disabled_at_ms >= created_at_ms),
    last_signin_at_ms INTEGER CHECK (last_signin_at_ms >= 0)
) STRICT;
