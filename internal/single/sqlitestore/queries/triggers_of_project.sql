-- The current revisions of a project's triggers, the first ?2 by name (an
-- export): the head's pointer decides which.
SELECT r.trigger_id, r.project_id, r.task_id, r.revision, r.task_revision, r.task_content_digest,
       r.name, r.enabled, r.expression, r.timezone, r.misfire_policy, r.content_digest, r.mutation_id, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy
FROM triggers t
JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
WHERE t.project_id = ?1
ORDER BY t.name
LIMIT ?2
