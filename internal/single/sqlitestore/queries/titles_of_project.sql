-- The display titles of a project's tasks and triggers that have one
-- (kind is task or trigger). A title is the head's, not a revision's.
SELECT 'task', name, title FROM tasks WHERE project_id = ?1 AND title <> ''
UNION ALL
SELECT 'trigger', name, title FROM triggers WHERE project_id = ?1 AND title <> ''
