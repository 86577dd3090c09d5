-- Sets a task's display title on its head: no revision is published, so
-- nothing that pins the task moves.
UPDATE tasks SET title = ?, updated_at_ms = ? WHERE project_id = ? AND name = ?
