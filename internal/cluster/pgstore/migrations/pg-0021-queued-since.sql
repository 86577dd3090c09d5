-- pg-0021: monitoring reads how long the longest-waiting queued Run has
-- waited (sql/monitor.sql, MonitorOldestQueued) as the first entry of this
-- index, whatever the tables hold: only queued Runs are in it, so it stays
-- as small as the queue.
CREATE INDEX runs_queued_since_idx ON qinglong.runs (queued_at_ms) WHERE state = 'queued';
