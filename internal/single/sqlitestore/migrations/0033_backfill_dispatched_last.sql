-- A backfill's Runs are dispatched after every other queued Run: a backlog
-- of thousands of backfilled occurrences must not hold back the clock's
-- Runs, a run-now or a re-run admitted behind it. The dispatcher reads its
-- queue in the order of attempts_pending, so the mark sits on the attempt
-- (set by the backfill's insert and copied to a retry's next attempt; 0
-- for every other admission by the column's default) and leads the index:
-- a round still reads only the attempts it can start, the others first.
ALTER TABLE attempts ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0 CHECK (backfilled IN (0, 1));
-- Backfilled Runs already waiting keep their place behind the others. Only
-- claimed attempts are marked: the dispatcher never reads another again.
UPDATE attempts SET backfilled = 1
WHERE state = 'claimed' AND EXISTS (
  SELECT 1 FROM run_events v
  WHERE v.run_id = attempts.run_id AND v.seq = 1 AND json_extract(v.payload, '$.manual') = 'backfill');
DROP INDEX attempts_pending;
CREATE INDEX attempts_pending ON attempts (backfilled, id) WHERE state = 'claimed' AND available_at_ms IS NULL;
