-- Renames or (un)archives a project, or replaces its notification
-- settings, its title or its cap on Runs at once; the unique name index
-- still applies.
UPDATE projects SET name = ?, status = ?, notifications_json = nullif(?, ''), updated_at_ms = ?, title = ?, max_running = ? WHERE id = ?
