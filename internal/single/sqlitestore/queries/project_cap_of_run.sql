-- The cap of the project of a Run about to take a slot (AttemptStart),
-- and how many of the project's Runs hold one now, read in the write
-- transaction that takes it: the single writer makes the check and the
-- take one step, so a project never holds more slots than its
-- max_running (migration 0045), whatever the dispatcher's page read
-- before. The count reads runs_unfinished_state, named (without
-- statistics the planner took runs_project, every Run the project ever
-- had, in each start's write transaction), and repeats its predicate: it
-- reads only the Runs holding a slot, at most the server's --concurrency.
SELECT pr.name, pr.max_running,
       (SELECT count(*) FROM runs x INDEXED BY runs_unfinished_state
        WHERE x.project_id = pr.id
          AND x.state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')
          AND x.state IN ('dispatching', 'running'))
FROM runs r JOIN projects pr ON pr.id = r.project_id
WHERE r.id = ?
