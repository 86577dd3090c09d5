-- Moves a task head from exactly the expected revision to the next; zero
-- rows means a concurrent publish won.
UPDATE tasks SET name = ?, current_revision = ?, updated_at_ms = ? WHERE id = ? AND current_revision = ?
