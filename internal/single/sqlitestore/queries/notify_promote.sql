-- A delivery to a channel succeeded: the receiver is back, so the channel's
-- rows waiting out a backoff are due at once, each from its creation, so
-- they go before any newer row of the channel and in creation order. Rows
-- under way (claimed, backing_off 0) are left to their claim: made due,
-- they would be sent twice at once. It reads the channel's rows whose next
-- attempt lies ahead, through notification_outbox_channel_due: the rows it
-- changes and those under way, never the channel's due backlog.
UPDATE notification_outbox
   SET next_attempt_at_ms = created_at_ms, backing_off = 0, updated_at_ms = ?1
 WHERE state = 'pending' AND backing_off = 1
   AND project_id = (SELECT d.project_id FROM notification_outbox d WHERE d.id = ?2)
   AND json_extract(channel_json, '$.name') = (SELECT json_extract(d.channel_json, '$.name') FROM notification_outbox d WHERE d.id = ?2)
   AND next_attempt_at_ms > ?1
