-- Retention dry run: what the runs rule (ended before ?1) and then the
-- logs rule (ended before ?2) would delete now, lost Runs as finished
-- ones, and the bytes of every log on disk: runs, attempts, events, logs
-- and bytes of the first; logs and bytes of the second; then the delivered
-- and dead notifications created before ?3; then the console sessions
-- expired by ?4. Bytes are what the logs take
-- on disk, as the cap counts them (retention.DiskBytes: whole 4 KiB
-- blocks, at least one a file); a running attempt's log is counted from
-- its file (retention_logs_running).
WITH doomed AS (
  SELECT r.id FROM runs r
  WHERE r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost') AND r.finished_at_ms < ?1
    AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.id AND a.state IN ('claimed', 'starting', 'running'))
), old_logs AS (
  SELECT max((a.log_bytes + 4095) / 4096, 1) * 4096 AS disk_bytes FROM attempts a JOIN runs r ON r.id = a.run_id
  WHERE a.log_path <> '' AND a.finished_at_ms < ?2 AND a.state NOT IN ('claimed', 'starting', 'running')
    AND r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost') AND r.id NOT IN (SELECT id FROM doomed)
)
SELECT (SELECT count(*) FROM doomed),
       (SELECT count(*) FROM attempts WHERE run_id IN (SELECT id FROM doomed)),
       (SELECT count(*) FROM run_events WHERE run_id IN (SELECT id FROM doomed)),
       (SELECT count(*) FROM attempts WHERE run_id IN (SELECT id FROM doomed) AND log_path <> ''),
       (SELECT coalesce(sum(max((log_bytes + 4095) / 4096, 1) * 4096), 0) FROM attempts WHERE run_id IN (SELECT id FROM doomed) AND log_path <> ''),
       (SELECT count(*) FROM old_logs),
       (SELECT coalesce(sum(disk_bytes), 0) FROM old_logs),
       (SELECT coalesce(sum(max((log_bytes + 4095) / 4096, 1) * 4096), 0) FROM attempts WHERE log_path <> '' AND finished_at_ms IS NOT NULL),
       (SELECT count(*) FROM notification_outbox WHERE state IN ('delivered', 'dead') AND created_at_ms < ?3),
       (SELECT count(*) FROM console_sessions WHERE expires_at_ms <= ?4)
