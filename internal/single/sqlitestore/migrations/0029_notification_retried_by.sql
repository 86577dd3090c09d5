-- A notification retried by hand records who asked, as the audit trail
-- names an actor (the CLI's user, `api:` token@address, `console:`
-- user or token@address): retried_by is the last retry's (NULL: never
-- retried by hand, or retried before this migration).
ALTER TABLE notification_outbox ADD COLUMN retried_by TEXT CHECK (length(retried_by) BETWEEN 1 AND 128);
