-- The starting or running attempts of one executor owner whose run has a
-- cancel intent, for that executor to stop. The owner's live attempts come
-- from the attempts_live_owner index (a handful: at most its concurrency),
-- each checked against its run's events by primary key.
SELECT a.id FROM attempts a
WHERE a.owner = ? AND a.state IN ('starting', 'running')
  AND EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = a.run_id AND e.name = 'run.cancel_requested')
ORDER BY a.id
