-- The current revisions of the named tasks of a project (?2 is a JSON
-- array of names): the head's pointer decides which.
SELECT r.task_id, r.project_id, r.revision, r.spec_json, r.content_digest, r.mutation_id, r.created_at_ms
FROM tasks t
JOIN task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
WHERE t.project_id = ?1 AND t.name IN (SELECT value FROM json_each(?2))
