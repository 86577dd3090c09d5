-- The dispatcher's queue: claimed local attempts of queued runs, a
-- backfill's after every other (backfilled, migration 0033), oldest
-- admission first within each, a cancel_previous replacement in the place
-- of the Run it replaced (place_of, migration 0036). The order and the
-- predicate are the partial index attempts_pending's (claimed, not
-- waiting out a retry backoff), so a round reads only attempts it could
-- start, in order, and never the ones waiting to retry, however many
-- wait; a backlog of backfilled Runs is read only once no other Run fills
-- the round. A Run admitted under queue_one or cancel_previous waits
-- while an earlier Run of its trigger is unfinished (one probe of the
-- index of unfinished Runs). A Run of an archived project is held, its
-- retries too: an archived project runs nothing, and a Run running when
-- it was archived is not stopped (one probe of the project's key). A Run
-- of a project already running its maxRunning Runs waits (migration
-- 0045), so the page holds other projects' Runs instead and a capped
-- project's queue never keeps them from a free slot. The projects at
-- their cap are found once per read, before the walk: the Runs holding a
-- slot, at most the server's --concurrency, read through
-- runs_unfinished_state (named: without statistics the planner took
-- runs_project, which holds the project's whole history) and grouped by
-- project. A queued Run of a project at its cap then costs the walk a
-- lookup of its Run and of that short list, never a count of its
-- project's Runs. The list is as the read began: AttemptStart checks the
-- cap again as it takes the slot.
WITH at_cap(project_id) AS MATERIALIZED (
  SELECT x.project_id FROM runs x INDEXED BY runs_unfinished_state
  WHERE x.state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')
    AND x.state IN ('dispatching', 'running')
  GROUP BY x.project_id
  HAVING count(*) >= (SELECT pr.max_running FROM projects pr WHERE pr.id = x.project_id AND pr.max_running > 0))
SELECT a.id, a.run_id, a.number, a.executor, a.state, a.created_at_ms
FROM attempts a
JOIN runs r ON r.id = a.run_id
WHERE a.state = 'claimed' AND a.available_at_ms IS NULL AND a.executor = 'local_process' AND r.state = 'queued'
  AND r.project_id NOT IN at_cap
  AND EXISTS (SELECT 1 FROM projects pr WHERE pr.id = r.project_id AND pr.status = 'active')
  AND (r.waits_for_previous = 0 OR NOT EXISTS (
    SELECT 1 FROM runs p
    WHERE p.trigger_id = r.trigger_id AND p.id < r.id AND p.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')))
ORDER BY a.backfilled, coalesce(a.place_of, a.id), a.id
LIMIT ?
