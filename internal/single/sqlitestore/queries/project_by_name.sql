-- Looks a project up by its unique name.
SELECT id, name, status, coalesce(notifications_json, '') FROM projects WHERE name = ?
