-- A delivery failed: due again after the backoff (?3 ms), waiting in it
-- until then, or dead, with its text and its reason (NULL: none known).
-- One due again at once (?3 = 0: a send a stop cut short) is due from its
-- creation, so it takes its place in its channel's creation order. Fenced
-- by the attempt count of the claim, so a late report of an older claim
-- changes nothing.
UPDATE notification_outbox
   SET state = ?1, next_attempt_at_ms = CASE WHEN ?3 > 0 THEN ?2 + ?3 ELSE created_at_ms END, backing_off = (?1 = 'pending' AND ?3 > 0),
       last_error = ?4, last_error_reason = ?7, updated_at_ms = ?2
 WHERE id = ?5 AND state = 'pending' AND attempts = ?6
