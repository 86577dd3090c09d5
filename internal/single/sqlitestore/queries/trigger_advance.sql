-- Moves a trigger head from exactly the expected revision to the next.
UPDATE triggers SET name = ?, current_revision = ?, updated_at_ms = ? WHERE id = ? AND current_revision = ?
