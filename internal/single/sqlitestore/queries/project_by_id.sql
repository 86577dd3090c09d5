-- Reads a project inside a publish, which requires it to exist and be active.
SELECT id, name, status, coalesce(notifications_json, ''), title, max_running, env_json FROM projects WHERE id = ?
