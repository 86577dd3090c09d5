-- The dispatcher's queue: claimed local attempts of queued runs, oldest
-- admission first. Reads the partial index of claimed attempts.
SELECT a.id, a.run_id, a.number, a.executor, a.state, a.created_at_ms
FROM attempts a
JOIN runs r ON r.id = a.run_id
WHERE a.state = 'claimed' AND a.executor = 'local_process' AND r.state = 'queued'
ORDER BY a.id
LIMIT ?
