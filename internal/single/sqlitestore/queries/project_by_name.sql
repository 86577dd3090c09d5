-- Looks a project up by its unique name.
SELECT id, name, status, coalesce(notifications_json, ''), title, max_running, env_json FROM projects WHERE name = ?
