-- Renames or (un)archives a project, or replaces its notification
-- settings, its title, its cap on Runs at once or its env; the unique name index
-- still applies.
UPDATE projects SET name = ?, status = ?, notifications_json = nullif(?, ''), updated_at_ms = ?, title = ?, max_running = ?, env_json = ? WHERE id = ?
