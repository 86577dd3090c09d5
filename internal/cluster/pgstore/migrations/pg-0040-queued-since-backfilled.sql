-- pg-0040: monitoring reads how long the longest-waiting queued Run has
-- waited apart from the backfills' (sql/monitor.sql, MonitorOldestQueued).
--
-- A backfill's Runs are granted after every other queued Run (pg-0039), so
-- a large backfill draining behind them read as Runs kept waiting. The mark
-- leads the index, so each age is the first entry of its half, whatever
-- the tables hold; only queued Runs are in it, so it stays as small as the
-- queue.
DROP INDEX qinglong.runs_queued_since_idx;
CREATE INDEX runs_queued_since_idx ON qinglong.runs (backfilled, queued_at_ms) WHERE state = 'queued';
