-- Retention: the Runs in the JSON array ?1, only while finished or lost.
DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?1)) AND state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
