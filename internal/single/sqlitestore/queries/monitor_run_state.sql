-- The Runs in one unfinished state, counted up to a limit. The IN list
-- repeats the predicate of the partial index runs_unfinished_state word for
-- word, so SQLite reads that index (finished Runs are not in it) and the
-- count never grows with history.
SELECT count(*) FROM (
  SELECT 1 FROM runs
  WHERE state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait') AND state = ?
  LIMIT ?
)
