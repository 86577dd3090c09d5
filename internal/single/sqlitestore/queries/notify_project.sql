-- The name of the project of one outbox row, which a retry by a token or
-- console user bound to projects must be one of.
SELECT p.name FROM notification_outbox o JOIN projects p ON p.id = o.project_id WHERE o.id = ?1
