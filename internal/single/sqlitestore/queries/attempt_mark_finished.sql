-- Moves an attempt to a terminal (or lost) state only from the state it was
-- read in, so a late result can never override a terminal one. A log marked
-- cut while the command ran stays marked.
UPDATE attempts
SET state = ?1, exit_code = ?2, error_code = ?3, finished_at_ms = ?4, log_bytes = ?5, log_truncated = max(log_truncated, ?6), error_message = ?9
WHERE id = ?7 AND state = ?8
