-- One run by id.
SELECT id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
       scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms,
       (SELECT p.name FROM projects p WHERE p.id = runs.project_id),
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = runs.trigger_id AND tr.revision = runs.trigger_revision),
       rerun_of
FROM runs WHERE id = ?
