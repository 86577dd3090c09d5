-- Claims due pending rows in due order: one more attempt each, and not due
-- again until the lease passes (a process that dies mid-delivery leaves
-- the row to be sent again, with the same id as its idempotency key). No
-- row is taken past its channel's share (?5), counting the rows of the
-- channel under way (?4, a JSON array of {"p": project, "c": channel,
-- "n": count}) and those the claim takes before it, so a receiver that
-- does not answer holds only its share of the send slots. The share is
-- counted among the first ?6 due rows only: the claim reads a bounded head
-- of the due index however long one channel's backlog is.
UPDATE notification_outbox
   SET attempts = attempts + 1, next_attempt_at_ms = ?1 + ?2, updated_at_ms = ?1
 WHERE id IN (
       SELECT r.id
         FROM (SELECT a.id, a.next_attempt_at_ms,
                      coalesce(b.n, 0) + row_number() OVER (PARTITION BY a.project_id, a.channel ORDER BY a.next_attempt_at_ms, a.id) AS nth
                 FROM (SELECT id, project_id, json_extract(channel_json, '$.name') AS channel, next_attempt_at_ms
                         FROM notification_outbox
                        WHERE state = 'pending' AND next_attempt_at_ms <= ?1
                        ORDER BY next_attempt_at_ms LIMIT ?6) a
                 LEFT JOIN (SELECT json_extract(value, '$.p') AS project_id, json_extract(value, '$.c') AS channel,
                                   json_extract(value, '$.n') AS n
                              FROM json_each(?4)) b
                   ON b.project_id = a.project_id AND b.channel = a.channel) r
        WHERE r.nth <= ?5
        ORDER BY r.next_attempt_at_ms LIMIT ?3)
RETURNING id, project_id, coalesce(run_id, ''), rule_key, event, channel_json, payload_json, state, attempts,
          next_attempt_at_ms, coalesce(last_error, ''), created_at_ms, coalesce(delivered_at_ms, 0)
