-- The dispatcher's queue: claimed local attempts of queued runs, a
-- backfill's after every other (backfilled, migration 0033), oldest
-- admission first within each, a cancel_previous replacement in the place
-- of the Run it replaced (place_of, migration 0036). Only attempts it
-- could start are read (claimed, not waiting out a retry backoff: the
-- predicate of the partial indexes read), never the ones waiting to retry,
-- however many wait; a backlog of backfilled Runs is read only once no
-- other Run fills the round. A Run admitted under queue_one or
-- cancel_previous waits while an earlier Run of its trigger is unfinished
-- (one probe of the index of unfinished Runs). A Run of an archived
-- project is held, its retries too (a Run running when the project was
-- archived is not stopped), and a Run of a project already running its
-- maxRunning Runs waits (migration 0045): the page holds other projects'
-- Runs instead, so a held project's queue never keeps them from a free
-- slot.
--
-- The projects at their cap are found once per read: the Runs holding a
-- slot, at most the server's --concurrency, read through
-- runs_unfinished_state (named: without statistics the planner took
-- runs_project, which holds the project's whole history) and grouped by
-- project. Exactly one of two reads then fills the page, the other's
-- LIMIT being 0 (SQLite then never opens its tables), and the page is the
-- same either way:
--
-- With no project at its cap, the walk of attempts_pending in the queue's
-- order, which stops at the page's size; an archived project's attempts
-- are passed over one by one (one probe of the project's key each).
--
-- Beside a project at its cap, that walk would pass over every queued Run
-- of the capped project, a round after round cost as long as its backlog.
-- The read goes project by project instead (CROSS JOIN: projects first),
-- skipping the projects at their cap and the archived ones without
-- opening their attempts, and reads each other project's pending attempts
-- along attempts_pending_project (the attempt's project, migration 0048)
-- in the queue's order. SQLite leaves a project's attempts at the first
-- one that comes after the page's last so far (its ORDER BY LIMIT exit:
-- each project's attempts arrive in the ORDER BY's order, and stay the
-- innermost loop because the Run's conditions are a subquery, not a
-- join), so the read costs about a page per project with pending
-- attempts, whatever a capped backlog holds.
--
-- The list of projects at their cap is as the read began: AttemptStart
-- checks the cap again as it takes the slot.
WITH at_cap(project_id) AS MATERIALIZED (
  SELECT x.project_id FROM runs x INDEXED BY runs_unfinished_state
  WHERE x.state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')
    AND x.state IN ('dispatching', 'running')
  GROUP BY x.project_id
  HAVING count(*) >= (SELECT pr.max_running FROM projects pr WHERE pr.id = x.project_id AND pr.max_running > 0))
SELECT id, run_id, number, executor, state, created_at_ms
FROM (
  SELECT * FROM (
    SELECT a.id, a.run_id, a.number, a.executor, a.state, a.created_at_ms, a.backfilled, coalesce(a.place_of, a.id) AS place
    FROM attempts a INDEXED BY attempts_pending
    JOIN runs r ON r.id = a.run_id
    WHERE a.state = 'claimed' AND a.available_at_ms IS NULL AND a.executor = 'local_process' AND r.state = 'queued'
      AND EXISTS (SELECT 1 FROM projects pr WHERE pr.id = r.project_id AND pr.status = 'active')
      AND (r.waits_for_previous = 0 OR NOT EXISTS (
        SELECT 1 FROM runs p
        WHERE p.trigger_id = r.trigger_id AND p.id < r.id AND p.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')))
    ORDER BY a.backfilled, coalesce(a.place_of, a.id), a.id
    LIMIT CASE WHEN EXISTS (SELECT 1 FROM at_cap) THEN 0 ELSE ?1 END)
  UNION ALL
  SELECT * FROM (
    SELECT a.id, a.run_id, a.number, a.executor, a.state, a.created_at_ms, a.backfilled, coalesce(a.place_of, a.id) AS place
    FROM projects pr
    CROSS JOIN attempts a INDEXED BY attempts_pending_project
    WHERE pr.status = 'active' AND pr.id NOT IN at_cap
      AND a.project_id = pr.id AND a.state = 'claimed' AND a.available_at_ms IS NULL AND a.executor = 'local_process'
      AND (SELECT r.state = 'queued'
             AND (r.waits_for_previous = 0 OR NOT EXISTS (
               SELECT 1 FROM runs p
               WHERE p.trigger_id = r.trigger_id AND p.id < r.id AND p.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')))
           FROM runs r WHERE r.id = a.run_id)
    ORDER BY a.backfilled, coalesce(a.place_of, a.id), a.id
    LIMIT CASE WHEN EXISTS (SELECT 1 FROM at_cap) THEN ?1 ELSE 0 END))
ORDER BY backfilled, place, id
