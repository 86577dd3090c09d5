-- Stores one recovery code's digest for a user whose two-step is turned
-- on in the same transaction.
INSERT INTO console_recovery_codes (user_id, digest) VALUES (?1, ?2)
