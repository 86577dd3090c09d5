-- Creates a task head at revision 1; the unique (project, name) index
-- rejects a name already used in the project.
INSERT INTO tasks (id, project_id, name, current_revision, created_at_ms, updated_at_ms) VALUES (?, ?, ?, 1, ?, ?)
