-- Creates a trigger head at revision 1, bound forever to its task; the
-- unique (project, name) index rejects a name already used.
INSERT INTO triggers (id, project_id, task_id, name, current_revision, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, 1, ?, ?)
