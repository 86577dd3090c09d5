-- Retention: the attempts of the Runs in the JSON array ?1 whose log is
-- still on disk, with its size.
SELECT id, log_bytes FROM attempts WHERE run_id IN (SELECT value FROM json_each(?1)) AND log_path <> ''
