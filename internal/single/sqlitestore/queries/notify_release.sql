-- At start-up, every pending row is due now: one process serves a file, so
-- a row whose next attempt lies ahead was claimed or backed off by a
-- process that has stopped, and a restart retries it at once with the
-- same id, due from its creation so that each channel's rows keep their
-- creation order.
UPDATE notification_outbox SET next_attempt_at_ms = created_at_ms, backing_off = 0 WHERE state = 'pending' AND next_attempt_at_ms > ?1
