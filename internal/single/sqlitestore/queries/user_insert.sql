-- Creates a console account; the unique name makes a second of one name a
-- conflict.
INSERT INTO console_users (id, name, role, password_hash, created_at_ms, projects) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
