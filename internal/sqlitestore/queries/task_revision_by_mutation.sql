-- A mutation id already applied to this task: a replay with the same
-- content is answered from here, any drift is rejected.
SELECT revision, content_digest, created_at_ms FROM task_revisions WHERE task_id = ? AND mutation_id = ?
