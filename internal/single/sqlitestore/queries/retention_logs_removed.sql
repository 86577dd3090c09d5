-- Retention: the log files of the attempts in the JSON array ?1 are gone
-- from disk, so nothing needs to name them any more.
DELETE FROM retention_logs WHERE attempt_id IN (SELECT value FROM json_each(?1))
