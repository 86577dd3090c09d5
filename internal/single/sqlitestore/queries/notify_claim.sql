-- Claims due pending rows in due order: one more attempt each, and not due
-- again until the lease passes (a process that dies mid-delivery leaves
-- the row to be sent again, with the same id as its idempotency key). No
-- row is taken past its channel's share (?5), counting the rows of the
-- channel under way (?4, a JSON array of {"p": project, "c": channel,
-- "n": count}) and those the claim takes before it, so a receiver that
-- does not answer holds only its share of the send slots.
--
-- The candidates are each channel's own first ?5 due rows (no channel may
-- take more), found through notification_outbox_channel_due: channels
-- walks the channels with pending rows, one descent each (SQLite has no
-- skip scan of its own), and heads reads each one's due rows in due
-- order. The walk starts before every project id ('' is none): asked for
-- the first channel without a bound, the planner scanned and sorted the
-- outbox instead of descending the index. A channel's backlog costs the
-- claim ?5 rows, and a healthy channel's rows are candidates however many
-- rows of a channel that does not answer fell due before them: a look at
-- the first rows due of all channels together was filled by such a
-- backlog and left the free slots empty until it had died out.
WITH RECURSIVE channels (project_id, channel) AS (
       SELECT '', ''
       UNION ALL
       SELECT o.project_id, json_extract(o.channel_json, '$.name')
         FROM channels c
         JOIN notification_outbox o
           ON o.id = coalesce(
                (SELECT x.id FROM notification_outbox x
                  WHERE x.state = 'pending' AND x.project_id = c.project_id AND json_extract(x.channel_json, '$.name') > c.channel
                  ORDER BY json_extract(x.channel_json, '$.name') LIMIT 1),
                (SELECT x.id FROM notification_outbox x
                  WHERE x.state = 'pending' AND x.project_id > c.project_id
                  ORDER BY x.project_id, json_extract(x.channel_json, '$.name') LIMIT 1))
     ),
     busy (project_id, channel, n) AS (
       SELECT json_extract(value, '$.p'), json_extract(value, '$.c'), json_extract(value, '$.n') FROM json_each(?4)
     ),
     heads AS (
       SELECT o.id, o.next_attempt_at_ms,
              coalesce(b.n, 0) + row_number() OVER (PARTITION BY c.project_id, c.channel ORDER BY o.next_attempt_at_ms, o.id) AS nth
         FROM channels c
         JOIN notification_outbox o
           ON o.id IN (SELECT x.id FROM notification_outbox x
                        WHERE x.state = 'pending' AND x.project_id = c.project_id AND json_extract(x.channel_json, '$.name') = c.channel
                          AND x.next_attempt_at_ms <= ?1
                        ORDER BY x.next_attempt_at_ms, x.id LIMIT ?5)
         LEFT JOIN busy b ON b.project_id = c.project_id AND b.channel = c.channel
     )
UPDATE notification_outbox
   SET attempts = attempts + 1, next_attempt_at_ms = ?1 + ?2, backing_off = 0, updated_at_ms = ?1
 WHERE id IN (SELECT id FROM heads WHERE nth <= ?5 ORDER BY next_attempt_at_ms, id LIMIT ?3)
RETURNING id, project_id, coalesce(run_id, ''), rule_key, event, channel_json, payload_json, state, attempts,
          next_attempt_at_ms, coalesce(last_error, ''), coalesce(last_error_reason, ''), created_at_ms, coalesce(delivered_at_ms, 0),
          coalesce(retried_at_ms, 0), attempts_before_retry, coalesce(retried_by, '')
