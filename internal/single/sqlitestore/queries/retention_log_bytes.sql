-- Retention: what every log of an ended attempt still on disk takes there,
-- as the cap counts it (retention.DiskBytes: whole 4 KiB blocks, at least
-- one a file; the attempts_logs index covers it), and the files named for
-- removal that are still there (retention_logs): they take the disk until
-- they go. A running attempt's is counted from its file
-- (retention_logs_running).
SELECT coalesce(sum(max((log_bytes + 4095) / 4096, 1) * 4096), 0) + (SELECT coalesce(sum(disk_bytes), 0) FROM retention_logs)
FROM attempts WHERE log_path <> '' AND finished_at_ms IS NOT NULL
