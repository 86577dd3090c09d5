-- An account's id and whether it is disabled, read in the transaction of
-- a disable or an enable: one that finds the account already so changes
-- nothing and records nothing.
SELECT id, disabled_at_ms IS NOT NULL FROM console_users WHERE name = ?1
