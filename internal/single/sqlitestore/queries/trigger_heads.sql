-- The heads a batch of trigger publishes fences on (?1 is a JSON array of
-- trigger ids): expected revision and bound task.
SELECT id, project_id, task_id, current_revision FROM triggers WHERE id IN (SELECT value FROM json_each(?1))
