-- Retention: the log files of the attempts in the JSON array ?1 are named
-- for removal before their attempts go or forget them, in the same
-- transaction, so that a file is always named by its attempt or here
-- (0053), whatever stops the process after the commit.
INSERT OR IGNORE INTO retention_logs (attempt_id, run_id, disk_bytes)
SELECT id, run_id, max((log_bytes + 4095) / 4096, 1) * 4096 FROM attempts WHERE id IN (SELECT value FROM json_each(?1)) AND log_path <> ''
