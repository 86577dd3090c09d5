-- Retention: the attempts of the Runs in the JSON array ?1 whose log is
-- still on disk, with what it takes there (retention.DiskBytes) and its Run.
SELECT id, max((log_bytes + 4095) / 4096, 1) * 4096, run_id FROM attempts WHERE run_id IN (SELECT value FROM json_each(?1)) AND log_path <> ''
