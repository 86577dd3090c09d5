-- Monitoring counts the unfinished Runs per state every few seconds; a
-- partial index of them keeps that read proportional to the unfinished
-- Runs, never to the finished history.
CREATE INDEX runs_unfinished_state ON runs (state)
  WHERE state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait');
