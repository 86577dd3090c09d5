-- Retention: up to ?1 log files named for removal by earlier batches that
-- are still to be removed, with their Runs, passing over the attempts in
-- the JSON array ?2 (their files could not be removed this pass).
SELECT attempt_id, run_id FROM retention_logs WHERE attempt_id NOT IN (SELECT value FROM json_each(?2)) ORDER BY attempt_id LIMIT ?1
