-- Reads a project inside a publish, which requires it to exist and be active.
SELECT id, name, status FROM projects WHERE id = ?
