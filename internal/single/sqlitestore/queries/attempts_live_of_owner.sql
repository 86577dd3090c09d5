-- The starting or running attempts of one owner, to be marked lost, with
-- the process (group) id and start time recovery needs to end an orphaned
-- command.
SELECT id, coalesce(pid, 0), started_at_ms FROM attempts WHERE owner = ? AND state IN ('starting', 'running') ORDER BY id
