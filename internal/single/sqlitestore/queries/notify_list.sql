-- Outbox rows for people, newest first, optionally of one state.
SELECT id, project_id, coalesce(run_id, ''), rule_key, event, channel_json, payload_json, state, attempts,
       next_attempt_at_ms, coalesce(last_error, ''), created_at_ms, coalesce(delivered_at_ms, 0)
  FROM notification_outbox
 WHERE ?1 = '' OR state = ?1
 ORDER BY created_at_ms DESC, id DESC
 LIMIT ?2
