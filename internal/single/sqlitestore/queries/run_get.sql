-- One run by id, with the columns of a run listing (runs_list.sql).
SELECT id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
       scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms,
       (SELECT p.name FROM projects p WHERE p.id = runs.project_id),
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = runs.trigger_id AND tr.revision = runs.trigger_revision),
       (SELECT k.name FROM task_revisions k WHERE k.task_id = runs.task_id AND k.revision = runs.task_revision),
       rerun_of,
       (SELECT json_extract(e.payload, '$.manual') FROM run_events e WHERE e.run_id = runs.id AND e.seq = 1),
       CASE WHEN state IN ('failed', 'timed_out', 'lost') THEN (SELECT a.error_code FROM attempts a WHERE a.run_id = runs.id ORDER BY a.number DESC LIMIT 1) END,
       CASE WHEN state IN ('failed', 'timed_out', 'lost') THEN (SELECT a.exit_code FROM attempts a WHERE a.run_id = runs.id ORDER BY a.number DESC LIMIT 1) END,
       (SELECT t.title FROM triggers t WHERE t.id = runs.trigger_id),
       CASE WHEN finished_at_ms IS NOT NULL THEN (SELECT sum(a.finished_at_ms - a.started_at_ms) FROM attempts a
                                                   WHERE a.run_id = runs.id AND a.started_at_ms IS NOT NULL AND a.finished_at_ms IS NOT NULL) END
FROM runs WHERE id = ?
