-- A delivery succeeded: the row is delivered for good.
UPDATE notification_outbox SET state = 'delivered', delivered_at_ms = ?1, last_error = NULL, last_error_reason = NULL, updated_at_ms = ?1
 WHERE id = ?2 AND state = 'pending'
