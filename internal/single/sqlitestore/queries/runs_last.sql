-- The newest Run of each trigger of a page of the triggers list (?1, a
-- JSON array of trigger ids): one probe of runs_trigger (trigger_id, id)
-- per trigger, whose last id is the Run admitted last (ids are UUIDv7, in
-- admission order), with when it was admitted, the Run it re-runs and the
-- request that admitted it (its run.created event's manual, one primary-key
-- probe of run_events): a rerun and a backfill's Run are listed at their
-- admission (run.ListedAt). A trigger without a Run gives no row.
-- Beside it, the two overlap warnings' facts (run.Last), each read in a
-- bounded probe so that a trigger with a million Runs costs what one with
-- ten does: its queued Runs, counted in runs_unfinished_trigger up to ?2
-- (run.BacklogCountCap), and how many of its newest ?3 Runs
-- (run.StarvingWindow, read off runs_trigger) were cancelled before any of
-- their attempts started (one probe of the attempts' (run_id, number) key
-- each). Last, the trigger's project, its max_running (migration 0045; 0
-- none) and, under a cap, how many of its Runs hold a slot, counted as
-- run_waiting.sql counts them (runs_unfinished_state, at most the
-- server's --concurrency rows): a backlog of a project at its cap is
-- advised to raise the cap, not the slots.
SELECT r.trigger_id, r.id, r.state, r.scheduled_for_ms, r.finished_at_ms, r.created_at_ms, coalesce(r.rerun_of, ''),
       coalesce((SELECT json_extract(e.payload, '$.manual') FROM run_events e WHERE e.run_id = r.id AND e.seq = 1), ''),
       (SELECT count(*) FROM (SELECT 1 FROM runs q
                               WHERE q.trigger_id = t.value AND q.state = 'queued'
                                 AND q.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
                               LIMIT ?2)),
       (SELECT count(*) FROM (SELECT w.id FROM runs w WHERE w.trigger_id = t.value ORDER BY w.id DESC LIMIT ?3) n
          JOIN runs c ON c.id = n.id
         WHERE c.state = 'cancelled'
           AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = c.id AND a.started_at_ms IS NOT NULL)),
       pr.name, pr.max_running,
       CASE WHEN pr.max_running > 0 THEN
         (SELECT count(*) FROM runs x
           WHERE x.project_id = r.project_id
             AND x.state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')
             AND x.state IN ('dispatching', 'running'))
       ELSE 0 END
FROM json_each(?1) t
JOIN runs r ON r.id = (SELECT l.id FROM runs l WHERE l.trigger_id = t.value ORDER BY l.id DESC LIMIT 1)
JOIN projects pr ON pr.id = r.project_id
