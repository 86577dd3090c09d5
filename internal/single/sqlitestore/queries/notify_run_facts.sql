-- What ran, for a Run whose project has notification settings (read after
-- notify_facts, so a project without any pays nothing more): the task's
-- name and display title now ('' none) and the Run's last attempt, its number, its id, its command's exit code and
-- its log file (0, '', NULL and '' without one; the file is read under the
-- attempt's id in the serving data directory, the stored path saying only
-- that there is one); when its first attempt
-- started (NULL if none did) and run.created's "manual" key, its origin
-- ('': the clock).
SELECT (SELECT t.name FROM task_revisions t WHERE t.task_id = r.task_id AND t.revision = r.task_revision),
       coalesce((SELECT tk.title FROM tasks tk WHERE tk.id = r.task_id), ''),
       coalesce(a.number, 0), coalesce(a.id, ''), a.exit_code, coalesce(a.log_path, ''),
       (SELECT min(s.started_at_ms) FROM attempts s WHERE s.run_id = r.id), coalesce((SELECT json_extract(e.payload, '$.manual') FROM run_events e WHERE e.run_id = r.id AND e.seq = 1), '')
  FROM runs r
  LEFT JOIN attempts a ON a.id = (SELECT id FROM attempts WHERE run_id = r.id ORDER BY number DESC LIMIT 1)
 WHERE r.id = ?
