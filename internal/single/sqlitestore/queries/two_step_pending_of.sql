-- The second step of a ticket's digest, whatever its end (the caller
-- judges it by the store's clock and deletes an ended one).
SELECT user_id, password_stamp, browser, expires_at_ms
  FROM console_two_step_pending WHERE digest = ?1
