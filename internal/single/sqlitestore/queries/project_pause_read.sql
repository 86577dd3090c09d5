-- A project's identity, status and pause state: for the pages that show
-- it, and under the write lock before a project pause or resume; ?1 is
-- its name or id (an id wins over a name that happens to be spelt as
-- another project's id).
SELECT p.id, p.name, p.status = 'archived', coalesce(pp.paused, 0), pp.note, pp.actor, pp.at_ms
FROM projects p
LEFT JOIN project_pauses pp ON pp.project_id = p.id
WHERE p.id = ?1 OR p.name = ?1
ORDER BY p.id = ?1 DESC
LIMIT 1
