-- A pending row whose last delivery failed and that waits out its backoff
-- (1), told apart from one claimed and under way, whose next attempt lies
-- ahead too (0). A delivery to the channel makes the rows waiting in
-- backoff due at once (queries/notify_promote.sql): a row under way must
-- never be, or it would be sent twice at once. Rows of an older build are
-- 0: they wait out their backoff as before.
ALTER TABLE notification_outbox ADD COLUMN backing_off INTEGER NOT NULL DEFAULT 0 CHECK (backing_off IN (0, 1));
