-- Renames or (un)archives a project, or replaces its notification
-- settings or its title; the unique name index still applies.
UPDATE projects SET name = ?, status = ?, notifications_json = nullif(?, ''), updated_at_ms = ?, title = ? WHERE id = ?
