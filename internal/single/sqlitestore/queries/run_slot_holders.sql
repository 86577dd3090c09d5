-- The triggers whose Runs hold the server's slots (dispatching or running),
-- each with how many it holds, most first, for the Run that waits for one
-- (run_waiting.sql), and for a backlogged trigger's warning (runs_last.go);
-- ?1 names one project (a project_busy Run's: the Runs holding its share),
-- '' every one. The IN list repeats the predicate of
-- runs_unfinished_state word for word, so it reads that index; the rows it
-- groups are the Runs holding a slot, at most the server's --concurrency,
-- so the read stays small whatever the history.
SELECT x.trigger_id,
       (SELECT p.name FROM projects p WHERE p.id = x.project_id),
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = x.trigger_id ORDER BY tr.revision DESC LIMIT 1) AS trigger_name,
       count(*) AS held
FROM runs x
WHERE x.state IN ('created', 'queued', 'dispatching', 'running', 'waiting_approval', 'retry_wait')
  AND x.state IN ('dispatching', 'running')
  AND (?1 = '' OR x.project_id = ?1)
GROUP BY x.trigger_id
ORDER BY held DESC, 2, trigger_name
