-- pg-0034: a notification retried by hand records who asked (sql/notify.sql,
-- NotifyRetry), as the audit trail names an actor (the CLI's user, `api:`
-- token@address, `console:` user or token@address): retried_by is the last
-- retry's (NULL: never retried by hand, or retried before this migration).
-- The runtime role updates the whole table, this column with it.
ALTER TABLE qinglong.notification_outbox
    ADD COLUMN retried_by text CHECK (length(retried_by) BETWEEN 1 AND 128);
