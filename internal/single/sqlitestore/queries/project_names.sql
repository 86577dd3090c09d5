-- The first ?1 project names in name order, each with its display title,
-- status and whether it is paused as a whole, for `ql projects list`, a
-- message naming the projects that exist and the console's pickers.
SELECT p.name, p.title, p.status, coalesce(pp.paused, 0) = 1
  FROM projects p LEFT JOIN project_pauses pp ON pp.project_id = p.id
 ORDER BY p.name LIMIT ?1
