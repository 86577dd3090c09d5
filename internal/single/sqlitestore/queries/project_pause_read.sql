-- A project's identity, status and pause state, read under the write lock
-- before a project pause or resume; ?1 is its name or id.
SELECT p.id, p.name, p.status = 'archived', coalesce(pp.paused, 0), pp.note, pp.actor, pp.at_ms
FROM projects p
LEFT JOIN project_pauses pp ON pp.project_id = p.id
WHERE p.id = ?1 OR p.name = ?1
