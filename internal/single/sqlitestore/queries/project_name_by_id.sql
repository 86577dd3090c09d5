-- The name of the project with an id, for an address naming a project by
-- its id.
SELECT name FROM projects WHERE id = ?1
