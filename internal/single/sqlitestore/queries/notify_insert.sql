-- One notification, pending and due now; a second row for the same rule
-- and subject is dropped (one notification per rule and Run).
INSERT INTO notification_outbox (id, project_id, run_id, rule_key, subject, event, channel_json, payload_json, state,
                                 attempts, next_attempt_at_ms, created_at_ms, updated_at_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)
ON CONFLICT (rule_key, subject) DO NOTHING
