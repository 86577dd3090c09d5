-- Whether any pending row is due, read on the read pool through
-- notification_outbox_due, so an idle delivery loop never takes the
-- writer.
SELECT EXISTS (SELECT 1 FROM notification_outbox WHERE state = 'pending' AND next_attempt_at_ms <= ?)
