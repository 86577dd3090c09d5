-- pg-0042: a Run that overlap cancel_previous admits in place of its
-- trigger's unfinished Runs is granted from the place the newest of them
-- held in the dispatch order, not behind every Run queued since.
--
-- The replacement is the state the trigger's owner wants now; on a busy
-- pool it used to wait behind Runs queued long after the one it replaced.
-- place_of is the Run whose place it takes: the cancelled Run's own id,
-- never the place that one took over in turn, so each queued Run is passed
-- at most once per replacement chain and a fast-firing trigger cannot
-- starve the others. NULL, as for every other admission, is the Run's own
-- id. A backfilled Run's place is behind every other, so its replacement
-- keeps its own. A retried or given-back Run keeps its place, as it keeps
-- its id.
ALTER TABLE qinglong.runs ADD COLUMN place_of uuid;

-- Replacements already queued take their place too. A queued Run waiting
-- for its trigger's earlier Runs replaced the Run admitted just before it
-- when that one was cancelled by the overlap policy: only the trigger's
-- next admission cancels with those reasons.
UPDATE qinglong.runs r SET place_of = p.id
  FROM qinglong.runs p
 WHERE r.state = 'queued' AND r.waits_for_previous AND NOT p.backfilled
   AND p.id = (SELECT q.id FROM qinglong.runs q WHERE q.trigger_id = r.trigger_id AND q.id < r.id ORDER BY q.id DESC LIMIT 1)
   AND EXISTS (SELECT 1 FROM qinglong.run_events v
                WHERE v.run_id = p.id AND v.name IN ('run.cancelled', 'run.cancel_requested')
                  AND v.payload->>'reason' IN ('cancelled by a later occurrence (overlap: cancel_previous)',
                                               'cancelled by a manual run (overlap: cancel_previous)'));

-- Dispatch reads each matching revision's first queued Runs in this
-- index's order: the others before a backfill's, then by place.
DROP INDEX qinglong.runs_queued_revision_idx;
CREATE INDEX runs_queued_revision_idx ON qinglong.runs (task_id, task_revision, backfilled, coalesce(place_of, id), id)
    WHERE state = 'queued';
