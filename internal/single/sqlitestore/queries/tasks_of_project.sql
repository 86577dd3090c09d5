-- The current revisions of a project's tasks, the first ?2 by name (an
-- export): the head's pointer decides which.
SELECT r.task_id, r.project_id, r.revision, r.spec_json, r.content_digest, r.mutation_id, r.created_at_ms
FROM tasks t
JOIN task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
WHERE t.project_id = ?1
ORDER BY t.name
LIMIT ?2
