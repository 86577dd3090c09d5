-- Retention: the oldest ended Runs that ended before ?1, at most ?2:
-- finished ones, and lost ones counted from when they were found lost
-- (the runs_finished partial index's own condition), and never a Run with
-- an attempt still open. runs_finished is named:
-- the state listing's partial index of finished Runs (runs_finished_state,
-- 0032) also covers the state condition, and the planner, without
-- statistics, took it, read every finished Run and sorted them.
SELECT r.id FROM runs r INDEXED BY runs_finished
WHERE r.state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost') AND r.finished_at_ms < ?1
  AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.id AND a.state IN ('claimed', 'starting', 'running'))
ORDER BY r.finished_at_ms
LIMIT ?2
