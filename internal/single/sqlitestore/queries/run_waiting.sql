-- What keeps a queued Run from starting, as the database knows it, with
-- the conditions of the dispatcher's queue (attempts_pending.sql): whether
-- its latest attempt is one the dispatcher takes (claimed, local, not
-- waiting out a retry backoff); for a Run admitted to wait behind an
-- earlier one (queue_one, or cancel_previous while the Run it cancelled
-- stops), the nearest earlier unfinished Run of its trigger (one probe of
-- runs_unfinished_trigger) and the overlap policy of the trigger
-- revision that admitted it, which says which of the two holds it; and how many Runs dispatch or run now, each
-- holding one of the server's slots; then the Run's project, its
-- max_running (migration 0045) and how many of its Runs hold a slot, the
-- dispatcher's cap (attempts_pending.sql). The IN lists of the counts
-- repeat the predicate of runs_unfinished_state word for word, so they
-- read that index and never grow with history; the project's names it
-- (without statistics the planner took runs_project, the project's whole
-- history).
SELECT
  EXISTS (SELECT 1 FROM attempts a
          WHERE a.run_id = r.id AND a.state = 'claimed' AND a.available_at_ms IS NULL AND a.executor = 'local_process'),
  (SELECT p.id FROM runs p
   WHERE r.waits_for_previous = 1 AND p.trigger_id = r.trigger_id AND p.id < r.id
     AND p.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
   ORDER BY p.id DESC LIMIT 1),
  (SELECT tr.overlap_policy FROM trigger_revisions tr
   WHERE tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision),
  (SELECT count(*) FROM runs x
   WHERE x.state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')
     AND x.state IN ('dispatching', 'running')),
  r.project_id, pr.name, pr.max_running,
  (SELECT count(*) FROM runs x INDEXED BY runs_unfinished_state
   WHERE x.project_id = r.project_id
     AND x.state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')
     AND x.state IN ('dispatching', 'running'))
FROM runs r JOIN projects pr ON pr.id = r.project_id
WHERE r.id = ? AND r.state = 'queued'
