-- Looks a project up by its unique name.
SELECT id, name, status FROM projects WHERE name = ?
