-- Stores a sign-in waiting for its second step (twostep_pending.go): the
-- key is the digest of the form's ticket, never the ticket; it ends at ?5
-- on the store's clock.
INSERT INTO console_two_step_pending (digest, user_id, password_stamp, browser, expires_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5)
