-- What a re-run repeats: a Run's trigger, state, scheduled time and pinned
-- revisions, with the content digests of the task and trigger revisions
-- it pinned.
SELECT r.trigger_id, r.state, r.scheduled_for_ms, r.task_revision, r.trigger_revision, r.execution_revision_id,
       tk.content_digest, tr.content_digest
FROM runs r
JOIN task_revisions tk ON tk.task_id = r.task_id AND tk.revision = r.task_revision
JOIN trigger_revisions tr ON tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision
WHERE r.id = ?
