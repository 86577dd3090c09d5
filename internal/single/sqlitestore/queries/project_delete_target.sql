-- Project deletion, under the write lock: the project ?1 names (its id, or
-- its name; an id wins over a name spelt as another project's id) and
-- whether it is archived, which a deletion requires.
SELECT id, name, status = 'archived' FROM projects WHERE id = ?1 OR name = ?1 ORDER BY id = ?1 DESC LIMIT 1
