-- Creates a project; the unique name index rejects a name already taken.
INSERT INTO projects (id, name, status, notifications_json, created_at_ms, updated_at_ms, title, max_running, env_json) VALUES (?, ?, ?, nullif(?, ''), ?, ?, ?, ?, ?)
