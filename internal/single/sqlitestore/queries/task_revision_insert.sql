-- Appends an immutable task revision; (task, revision) and (task, mutation)
-- are unique.
INSERT INTO task_revisions (task_id, revision, project_id, name, enabled, spec_json, content_digest, mutation_id, created_at_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
