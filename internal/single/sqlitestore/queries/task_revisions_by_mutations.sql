-- Mutation ids already applied to the batch's tasks (?1 is a JSON array of
-- [task id, mutation id]): a replay with the same content is answered from
-- here, any drift is rejected.
SELECT r.task_id, r.revision, r.content_digest, r.created_at_ms
FROM json_each(?1) AS m
JOIN task_revisions r ON r.task_id = json_extract(m.value, '$[0]') AND r.mutation_id = json_extract(m.value, '$[1]')
