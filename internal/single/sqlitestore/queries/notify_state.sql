-- The state of one outbox row, to say why a retry changed nothing.
SELECT state FROM notification_outbox WHERE id = ?
