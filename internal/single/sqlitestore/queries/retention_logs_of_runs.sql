-- Retention: the attempts of the Runs in the JSON array ?1 whose log is
-- still on disk, with its size and Run.
SELECT id, log_bytes, run_id FROM attempts WHERE run_id IN (SELECT value FROM json_each(?1)) AND log_path <> ''
