-- Retention: the bytes of every log still on disk (the attempts_logs
-- index covers it).
SELECT coalesce(sum(log_bytes), 0) FROM attempts WHERE log_path <> ''
