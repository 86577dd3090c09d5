-- Sets a trigger's display title on its head: no revision is published,
-- so the schedule row keeps its cursor and state_version and the
-- occurrence ledger is not written.
UPDATE triggers SET title = ?, updated_at_ms = ? WHERE project_id = ? AND name = ?
