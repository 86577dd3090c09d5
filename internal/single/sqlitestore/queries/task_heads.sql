-- The heads a batch of task publishes fences on (?1 is a JSON array of
-- task ids): each expected revision must equal its head's.
SELECT id, project_id, current_revision FROM tasks WHERE id IN (SELECT value FROM json_each(?1))
