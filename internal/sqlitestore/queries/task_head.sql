-- The head a publish fences on: the expected revision must equal it.
SELECT project_id, current_revision FROM tasks WHERE id = ?
