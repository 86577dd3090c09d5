-- The starting or running attempts of one owner, to be marked lost, with
-- the process (group) id and start time recovery needs to end an orphaned
-- command, and the log file whose size the lost attempt records (the
-- retention cap counts it, as a finished attempt's).
SELECT id, coalesce(pid, 0), started_at_ms, log_path FROM attempts WHERE owner = ? AND state IN ('starting', 'running') ORDER BY id
