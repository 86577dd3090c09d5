-- pg-0028: a notification retried by hand keeps its attempts (sql/notify.sql,
-- NotifyRetry).
--
-- attempts counts every delivery a notification was ever given;
-- retried_at_ms says when it was last retried by hand (`ql notifications
-- retry`, the API, the console; NULL: never) and attempts_before_retry how
-- many attempts it had then, so the limit of attempts counts again from
-- the retry while the history stays. The runtime role updates the whole
-- table, these columns with it.
ALTER TABLE qinglong.notification_outbox
    ADD COLUMN retried_at_ms bigint CHECK (retried_at_ms >= 0),
    ADD COLUMN attempts_before_retry integer NOT NULL DEFAULT 0,
    ADD CONSTRAINT notification_outbox_attempts_before_retry_check CHECK (attempts_before_retry >= 0 AND attempts_before_retry <= attempts);
