-- A dead row is pending again and due now, its attempts counted afresh.
UPDATE notification_outbox SET state = 'pending', attempts = 0, next_attempt_at_ms = ?1, updated_at_ms = ?1
 WHERE id = ?2 AND state = 'dead'
RETURNING id, project_id, coalesce(run_id, ''), rule_key, event, channel_json, payload_json, state, attempts,
          next_attempt_at_ms, coalesce(last_error, ''), coalesce(last_error_reason, ''), created_at_ms, coalesce(delivered_at_ms, 0)
