-- Retention: the oldest logs still on disk of ended attempts of finished
-- or lost Runs that ended before ?1, at most ?2, with what they take on
-- disk (retention.DiskBytes: whole 4 KiB blocks, at least one a file) and
-- their Runs. A lost Run's logs go as a finished Run's do;
-- a running command's never. The Run's state is written +r.state, so the
-- logs are read through attempts_logs, oldest first, and each Run by its
-- key: the state listing's partial index of finished Runs (0032) also
-- covers the condition, and the planner, without statistics, drove the
-- batch from it through every finished Run.
SELECT a.id, max((a.log_bytes + 4095) / 4096, 1) * 4096, a.run_id FROM attempts a JOIN runs r ON r.id = a.run_id
WHERE a.log_path <> '' AND a.finished_at_ms < ?1
  AND a.state NOT IN ('claimed', 'starting', 'running')
  AND +r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
ORDER BY a.finished_at_ms
LIMIT ?2
