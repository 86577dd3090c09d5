-- The claim finds each channel's own first due rows, so that one
-- channel's backlog of retries never hides another channel's rows from a
-- claim with free slots. This index serves both of its searches: the
-- walk from one channel with pending rows to the next (one descent per
-- channel, however long a channel's backlog), and a channel's due rows in
-- due order (id breaks ties, as the claim orders them).
CREATE INDEX notification_outbox_channel_due ON notification_outbox (project_id, json_extract(channel_json, '$.name'), next_attempt_at_ms, id)
  WHERE state = 'pending';
