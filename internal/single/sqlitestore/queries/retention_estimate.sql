-- Retention dry run: what the runs rule (ended before ?1) and then the
-- logs rule (ended before ?2) would delete now, lost Runs as finished
-- ones, and, when ?4 (a log cap is set), the bytes of every log on disk:
-- runs, attempts, events, logs and bytes of the first; logs and bytes of
-- the second; then the delivered and dead notifications created before
-- ?3; then the console sessions expired by ?5. Bytes are what the logs take on disk, as the cap counts them
-- (retention.DiskBytes: whole 4 KiB blocks, at least one a file); a
-- running attempt's log is counted from its file (retention_logs_running),
-- and a file named for removal and still there (retention_logs) as well.
-- Each set is read once, materialized, and aggregated in one pass: the
-- cost is the expired Runs' rows, the old logs and (with a cap) every log,
-- never a multiple of them.
-- runs_finished is named (INDEXED BY) and the old logs' Run state is
-- written +r.state: the state listing's partial index of finished Runs
-- (runs_finished_state, 0032) also covers this state condition, and the
-- planner, without statistics, took it and read every finished Run.
WITH doomed AS MATERIALIZED (
  SELECT r.id FROM runs r INDEXED BY runs_finished
  WHERE r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost') AND r.finished_at_ms < ?1
    AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.id AND a.state IN ('claimed', 'starting', 'running'))
), doomed_attempts AS MATERIALIZED (
  SELECT count(*) AS attempts, count(*) FILTER (WHERE a.log_path <> '') AS logs,
         coalesce(sum(max((a.log_bytes + 4095) / 4096, 1) * 4096) FILTER (WHERE a.log_path <> ''), 0) AS bytes
  FROM doomed d JOIN attempts a ON a.run_id = d.id
), old_logs AS MATERIALIZED (
  SELECT count(*) AS logs, coalesce(sum(max((a.log_bytes + 4095) / 4096, 1) * 4096), 0) AS bytes
  FROM attempts a JOIN runs r ON r.id = a.run_id
  WHERE a.log_path <> '' AND a.finished_at_ms < ?2 AND a.state NOT IN ('claimed', 'starting', 'running')
    AND +r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost') AND r.id NOT IN (SELECT id FROM doomed)
)
SELECT (SELECT count(*) FROM doomed), da.attempts,
       (SELECT count(*) FROM doomed d JOIN run_events e ON e.run_id = d.id),
       da.logs, da.bytes, ol.logs, ol.bytes,
       (SELECT coalesce(sum(max((log_bytes + 4095) / 4096, 1) * 4096), 0) FROM attempts WHERE ?4 AND log_path <> '' AND finished_at_ms IS NOT NULL)
         + (SELECT coalesce(sum(disk_bytes), 0) FROM retention_logs WHERE ?4),
       (SELECT count(*) FROM notification_outbox WHERE state IN ('delivered', 'dead') AND created_at_ms < ?3),
       (SELECT count(*) FROM console_sessions WHERE expires_at_ms <= ?5)
FROM doomed_attempts da, old_logs ol
