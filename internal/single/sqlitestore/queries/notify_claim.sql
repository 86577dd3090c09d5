-- Claims due pending rows in due order: one more attempt each, and not due
-- again until the lease passes (a process that dies mid-delivery leaves
-- the row to be sent again, with the same id as its idempotency key).
UPDATE notification_outbox
   SET attempts = attempts + 1, next_attempt_at_ms = ?1 + ?2, updated_at_ms = ?1
 WHERE id IN (SELECT id FROM notification_outbox WHERE state = 'pending' AND next_attempt_at_ms <= ?1
               ORDER BY next_attempt_at_ms LIMIT ?3)
RETURNING id, project_id, coalesce(run_id, ''), rule_key, event, channel_json, payload_json, state, attempts,
          next_attempt_at_ms, coalesce(last_error, ''), created_at_ms, coalesce(delivered_at_ms, 0)
