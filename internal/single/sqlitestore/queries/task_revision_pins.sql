-- The task revisions a batch of trigger revisions pins (?1 is a JSON array
-- of [task id, revision]): each must exist, belong to the project, carry
-- the pinned digest, and be enabled if its trigger is.
SELECT r.task_id, r.revision, r.project_id, r.content_digest, r.enabled
FROM json_each(?1) AS m
JOIN task_revisions r ON r.task_id = json_extract(m.value, '$[0]') AND r.revision = json_extract(m.value, '$[1]')
