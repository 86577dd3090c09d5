-- The head a trigger publish fences on (expected revision, bound task).
SELECT project_id, task_id, current_revision FROM triggers WHERE id = ?
