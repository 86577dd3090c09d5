-- The attempts of a backup that have a log file, whose files go with it.
SELECT id FROM attempts WHERE log_path <> '' ORDER BY id
