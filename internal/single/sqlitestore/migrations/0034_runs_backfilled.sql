-- Monitoring reads how long the longest-waiting queued Run has waited
-- apart from the backfills' (a backfill's Runs wait behind every other by
-- design, migration 0033, so a large one drained behind them would read as
-- Runs kept waiting). The mark a backfill sets on its attempts is also the
-- Run's, and leads runs_queued_since: each age is then the first entry of
-- its half of the index.
ALTER TABLE runs ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0 CHECK (backfilled IN (0, 1));
-- Only unfinished Runs are queued, or queued again by a retry: the
-- finished keep the default.
UPDATE runs SET backfilled = 1
WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost') AND EXISTS (
  SELECT 1 FROM run_events v
  WHERE v.run_id = runs.id AND v.seq = 1 AND json_extract(v.payload, '$.manual') = 'backfill');
DROP INDEX runs_queued_since;
CREATE INDEX runs_queued_since ON runs (backfilled, queued_at_ms) WHERE state = 'queued';
