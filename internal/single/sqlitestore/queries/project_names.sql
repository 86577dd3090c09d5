-- The first ?1 projects in name order past the name ?3 ('' from the
-- first: a page's cursor), each with its id, display title, status and
-- whether it is paused as a whole, for `ql projects list`, the API's
-- listing, a message naming the projects that exist and the console's
-- pickers. ?2 is the names of the projects a bound token or console user
-- may see, a JSON array ('' every project), filtered before the limit
-- cuts, so that the list is full of theirs however many other projects
-- sort first.
SELECT p.id, p.name, p.title, p.status, coalesce(pp.paused, 0) = 1
  FROM projects p LEFT JOIN project_pauses pp ON pp.project_id = p.id
 WHERE (?2 = '' OR p.name IN (SELECT value FROM json_each(?2)))
   AND (?3 = '' OR p.name > ?3)
 ORDER BY p.name LIMIT ?1
