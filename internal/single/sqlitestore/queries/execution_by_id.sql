-- The execution plan a run was admitted with; verified before it is run.
SELECT id, project_id, task_id, task_revision, task_content_digest, executor, command_json, digest
FROM execution_revisions WHERE id = ?
