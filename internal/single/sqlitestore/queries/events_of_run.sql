-- A run's history in sequence order.
SELECT run_id, seq, name, payload, created_at_ms FROM run_events WHERE run_id = ? ORDER BY seq
