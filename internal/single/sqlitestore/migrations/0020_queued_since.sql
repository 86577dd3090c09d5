-- Monitoring reads how long the longest-waiting queued Run has waited: the
-- first entry of this index, whatever the tables hold. Only queued Runs
-- are in it, so it stays as small as the queue.
CREATE INDEX runs_queued_since ON runs (queued_at_ms) WHERE state = 'queued';
