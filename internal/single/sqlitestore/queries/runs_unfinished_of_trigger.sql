-- The unfinished Runs of a trigger, oldest first, read inside the
-- admission's write transaction to apply its overlap policy (a lost Run is
-- finished), each with whether it waits: queued (or being created) with
-- only its first attempt, still in the dispatcher's queue, so it never
-- started (queue_one admits no second such Run; a Run queued again to
-- retry or after it was lost has started). Reads the partial index of
-- unfinished Runs, and a waiting candidate's attempts by their (run_id,
-- number) key.
SELECT r.id,
       r.state IN ('created', 'queued') AND NOT EXISTS (
         SELECT 1 FROM attempts a WHERE a.run_id = r.id AND (a.number > 1 OR a.state <> 'claimed'))
FROM runs r
WHERE r.trigger_id = ? AND r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
ORDER BY r.id
