-- What an attempt's command is told about itself (run.Identity), read in
-- the transaction that starts it, so the names and the occurrence are the
-- Run's as it starts. The names are those the run readers give
-- (run_get.sql): the project's current one, the trigger's and the task's
-- at the Run's revisions; the origin is run.created's "manual" key, NULL
-- for the clock's.
SELECT a.number, r.scheduled_for_ms, r.due_at_ms,
       (SELECT p.name FROM projects p WHERE p.id = r.project_id),
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision),
       (SELECT k.name FROM task_revisions k WHERE k.task_id = r.task_id AND k.revision = r.task_revision),
       (SELECT json_extract(e.payload, '$.manual') FROM run_events e WHERE e.run_id = r.id AND e.seq = 1)
FROM attempts a JOIN runs r ON r.id = a.run_id
WHERE a.id = ?
