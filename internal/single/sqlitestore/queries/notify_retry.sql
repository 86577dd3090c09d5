-- A dead row is pending again and due at once, its attempts kept: the
-- retry by hand is recorded (when, who asked, and the attempts it had
-- then, from which the limit of attempts counts again). It is due from its creation,
-- so it takes its place in its channel's creation order.
UPDATE notification_outbox
   SET state = 'pending', attempts_before_retry = attempts, retried_at_ms = ?1, retried_by = ?3, next_attempt_at_ms = created_at_ms, backing_off = 0,
       updated_at_ms = ?1
 WHERE id = ?2 AND state = 'dead'
RETURNING id, project_id, coalesce(run_id, ''), rule_key, event, channel_json, payload_json, state, attempts,
          next_attempt_at_ms, coalesce(last_error, ''), coalesce(last_error_reason, ''), created_at_ms, coalesce(delivered_at_ms, 0),
          coalesce(retried_at_ms, 0), attempts_before_retry, coalesce(retried_by, '')
