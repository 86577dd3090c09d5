-- The columns of an outbox listing for people, ending at FROM:
-- NotificationsList composes the filters a request gives after it
-- (notify.go), so each one is a range of its index in the listing's order
-- (notification_outbox_state_listing or notification_outbox_project_listing,
-- each ending in id; the primary key for the cursor alone) rather than a
-- catch-all "? = '' OR …" plan that reads the whole outbox.
SELECT id, project_id, coalesce(run_id, ''), rule_key, event, channel_json, payload_json, state, attempts,
       next_attempt_at_ms, coalesce(last_error, ''), coalesce(last_error_reason, ''), created_at_ms, coalesce(delivered_at_ms, 0),
       coalesce(retried_at_ms, 0), attempts_before_retry, coalesce(retried_by, '')
  FROM notification_outbox
