-- A Run that overlap cancel_previous admits in place of its trigger's
-- unfinished Runs is dispatched from the place the newest of them held,
-- not behind every Run queued since: it is the state the trigger's owner
-- wants now, and on a busy executor it used to wait behind Runs queued
-- long after the one it replaced. place_of is the attempt whose place in
-- the queue the attempt takes (that Run's latest attempt, never the place
-- that one took over in turn: each queued Run is passed at most once per
-- replacement chain, so a fast-firing trigger cannot starve the others);
-- NULL, as for every other admission, is the attempt's own id. A
-- backfilled Run's place is behind every other, so its replacement keeps
-- its own. A retry's next attempt takes its own place, as any retry does.
ALTER TABLE attempts ADD COLUMN place_of TEXT;
-- Replacements already queued take their place too. A queued Run waiting
-- for its trigger's earlier Runs replaced the Run admitted just before it
-- when that one was cancelled by the overlap policy: only the trigger's
-- next admission cancels with those reasons.
WITH replaced AS (
  SELECT a.id AS attempt_id,
         (SELECT max(p.id) FROM runs p WHERE p.trigger_id = r.trigger_id AND p.id < r.id) AS previous
  FROM attempts a
  JOIN runs r ON r.id = a.run_id
  WHERE a.state = 'claimed' AND a.available_at_ms IS NULL AND a.number = 1 AND r.state = 'queued' AND r.waits_for_previous = 1)
UPDATE attempts SET place_of = (
  SELECT pa.id FROM attempts pa WHERE pa.run_id = x.previous AND pa.backfilled = 0 ORDER BY pa.number DESC LIMIT 1)
FROM replaced x
WHERE attempts.id = x.attempt_id AND EXISTS (
  SELECT 1 FROM run_events v
  WHERE v.run_id = x.previous AND v.name IN ('run.cancelled', 'run.cancel_requested')
    AND json_extract(v.payload, '$.reason') IN ('cancelled by a later occurrence (overlap: cancel_previous)',
                                                'cancelled by a manual run (overlap: cancel_previous)'));
-- The dispatcher walks its queue in this index's order and sorts nothing:
-- a backfill's last, then by the place each attempt holds.
DROP INDEX attempts_pending;
CREATE INDEX attempts_pending ON attempts (backfilled, coalesce(place_of, id), id) WHERE state = 'claimed' AND available_at_ms IS NULL;
