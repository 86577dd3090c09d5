-- An attempt's log was cut at its cap while its command runs; one that has
-- ended keeps what its result recorded.
UPDATE attempts SET log_truncated = 1 WHERE id = ?1 AND state IN ('starting', 'running')
