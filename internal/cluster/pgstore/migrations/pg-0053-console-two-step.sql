-- Two-step sign-in (docs/console.md, "Two-step sign-in"): a user's TOTP
-- secret, waiting for its first code while enabled_at_ms is NULL, and the
-- newest time step a code was accepted for, which refuses any code of that
-- step or an older one on every replica (a code is used once). The secret
-- is stored as it is, as it must be to check codes: a backup of the
-- database holds it, as it holds the password hashes. Deleting the
-- account deletes its row.
CREATE TABLE qinglong.console_two_step (
    user_id       uuid   NOT NULL PRIMARY KEY REFERENCES qinglong.console_users (id) ON DELETE CASCADE,
    secret        text   NOT NULL CHECK (length(secret) BETWEEN 16 AND 128),
    enabled_at_ms bigint CHECK (enabled_at_ms >= 0),
    last_step     bigint NOT NULL DEFAULT 0 CHECK (last_step >= 0)
);

-- The unused recovery codes of a user whose two-step is on, each as the
-- SHA-256 of the code in hex, never the code: using one deletes its row,
-- and turning two-step off deletes them all with the secret's row.
CREATE TABLE qinglong.console_recovery_codes (
    user_id uuid NOT NULL REFERENCES qinglong.console_two_step (user_id) ON DELETE CASCADE,
    digest  text NOT NULL CHECK (length(digest) = 64),
    PRIMARY KEY (user_id, digest)
);
