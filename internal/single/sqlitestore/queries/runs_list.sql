-- The columns of a run listing, ending at FROM: RunList composes the
-- filters a request gives after it (runs_read.go), so each one is a seek
-- or range of its index — runs_project or runs_trigger (each ending in
-- id), or the primary key for the keyset cursor and the time window —
-- rather than a catch-all "? = '' OR …" plan that scans the whole table.
SELECT id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
       scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms,
       (SELECT p.name FROM projects p WHERE p.id = runs.project_id),
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = runs.trigger_id AND tr.revision = runs.trigger_revision),
       rerun_of
FROM runs
