-- The execution plan pinned by a task revision; an admit fails closed when it
-- is missing or its digest does not verify.
SELECT id, project_id, task_id, task_revision, task_content_digest, executor, command_json, digest
FROM execution_revisions WHERE task_id = ? AND task_revision = ?
