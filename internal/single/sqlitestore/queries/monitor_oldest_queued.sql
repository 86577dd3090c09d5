-- When the longest-waiting queued Run was queued, apart from backfills',
-- and when the longest-waiting backfilled one was: the first entry of each
-- half of the partial index runs_queued_since (queued Runs only, by the
-- backfill mark first), however many Runs there are. NULL when none is
-- queued.
SELECT (SELECT queued_at_ms FROM runs WHERE state = 'queued' AND backfilled = 0 ORDER BY queued_at_ms LIMIT 1),
       (SELECT queued_at_ms FROM runs WHERE state = 'queued' AND backfilled = 1 ORDER BY queued_at_ms LIMIT 1)
