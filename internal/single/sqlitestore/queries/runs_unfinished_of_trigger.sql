-- The unfinished Runs of a trigger, oldest first, read inside the
-- admission's write transaction to apply its overlap policy (a lost Run is
-- finished). Reads the partial index of unfinished Runs.
SELECT id
FROM runs
WHERE trigger_id = ? AND state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
ORDER BY id
