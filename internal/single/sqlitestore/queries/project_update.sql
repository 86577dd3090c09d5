-- Renames or (un)archives a project; the unique name index still applies.
UPDATE projects SET name = ?, status = ?, updated_at_ms = ? WHERE id = ?
