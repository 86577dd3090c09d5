-- A page of retry_wait Runs whose next attempt's backoff has passed, the
-- earliest first, read under the write lock with what the requeue writes
-- against (the Run's version and last event).
SELECT a.id, a.number, r.id, r.version, r.last_event_seq
FROM attempts a
JOIN runs r ON r.id = a.run_id
WHERE a.state = 'claimed' AND a.available_at_ms IS NOT NULL AND a.available_at_ms <= ? AND r.state = 'retry_wait'
ORDER BY a.available_at_ms
LIMIT ?
