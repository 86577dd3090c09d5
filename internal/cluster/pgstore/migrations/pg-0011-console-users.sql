-- Console user accounts (docs/console.md, "Signing in"). Only a password's
-- Argon2id hash is stored. The admin role creates, disables and deletes
-- accounts and sets passwords; the runtime role, which serves the console,
-- reads them to sign a user in and may write only the time of the last
-- sign-in (a column grant), so it can never change a role, a password or a
-- disabled account. A deleted account's row is removed, so its name may be
-- given again.
CREATE TABLE qinglong.console_users (
    id                uuid   NOT NULL PRIMARY KEY,
    name              text   NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 128),
    role              text   NOT NULL CHECK (role IN ('viewer', 'operator', 'owner')),
    password_hash     text   NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
    created_at_ms     bigint NOT NULL CHECK (created_at_ms >= 0),
    disabled_at_ms    bigint CHECK (disabled_at_ms >= created_at_ms),
    last_signin_at_ms bigint CHECK (last_signin_at_ms >= 0)
);
