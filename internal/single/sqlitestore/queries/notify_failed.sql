-- A delivery failed: due again after the backoff, or dead, with its text
-- and its reason (NULL: none known). Fenced by the attempt count of the
-- claim, so a late report of an older claim changes nothing.
UPDATE notification_outbox
   SET state = ?1, next_attempt_at_ms = ?2 + ?3, last_error = ?4, last_error_reason = ?7, updated_at_ms = ?2
 WHERE id = ?5 AND state = 'pending' AND attempts = ?6
