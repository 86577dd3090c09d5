-- Looks a project up by its unique name.
SELECT id, name, status, coalesce(notifications_json, ''), title, max_running FROM projects WHERE name = ?
