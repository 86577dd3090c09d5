-- pg-0039: a backfill's Runs are granted after every other queued Run.
--
-- Dispatch took queued Runs oldest first, so a backlog of thousands of
-- backfilled occurrences held back the clock's Runs, run-nows and re-runs
-- admitted behind it. The mark is set by the backfill's insert (false for
-- every other admission by the column's default) and leads the order of
-- runs_queued_revision_idx after the revision, so a pull still reads only
-- each matching revision's first few queued Runs: the others first, then
-- the backfill's. A retried or given-back Run keeps its mark.
ALTER TABLE qinglong.runs ADD COLUMN backfilled boolean NOT NULL DEFAULT false;

-- Backfilled Runs not yet finished keep their place behind the others.
-- Finished ones are never dispatched again and keep the default.
UPDATE qinglong.runs r SET backfilled = true
 WHERE r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
   AND EXISTS (SELECT 1 FROM qinglong.run_events v WHERE v.run_id = r.id AND v.seq = 1 AND v.payload->>'manual' = 'backfill');

DROP INDEX qinglong.runs_queued_revision_idx;
CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, backfilled, id)
    WHERE state = 'queued';
