-- Writes the immutable execution plan of an enabled task revision in the
-- same transaction as the revision itself.
INSERT INTO execution_revisions (task_id, task_revision, id, project_id, task_content_digest, executor, command_json, digest, created_at_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
