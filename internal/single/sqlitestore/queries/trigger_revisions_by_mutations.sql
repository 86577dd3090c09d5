-- Mutation ids already applied to the batch's triggers (?1 is a JSON array
-- of [trigger id, mutation id]): a replay with the same content is answered
-- from here, any drift is rejected.
SELECT r.trigger_id, r.revision, r.content_digest, r.created_at_ms
FROM json_each(?1) AS m
JOIN trigger_revisions r ON r.trigger_id = json_extract(m.value, '$[0]') AND r.mutation_id = json_extract(m.value, '$[1]')
