-- A run's attempts in order.
SELECT id, run_id, number, executor, state, exit_code, error_code, error_message, created_at_ms, started_at_ms, finished_at_ms,
       log_path, log_bytes, log_truncated
FROM attempts WHERE run_id = ? ORDER BY number
