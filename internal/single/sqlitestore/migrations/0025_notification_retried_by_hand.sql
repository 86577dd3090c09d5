-- A notification retried by hand (`ql notifications retry`, the API, the
-- console) keeps its attempts: attempts counts every delivery it was ever
-- given, retried_at_ms says when it was last retried by hand (NULL: never)
-- and attempts_before_retry how many attempts it had then, so the limit of
-- attempts counts again from the retry while the history stays.
ALTER TABLE notification_outbox ADD COLUMN retried_at_ms INTEGER;
ALTER TABLE notification_outbox ADD COLUMN attempts_before_retry INTEGER NOT NULL DEFAULT 0;
