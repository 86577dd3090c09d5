-- pg-0029: a pending row waiting out its backoff, told apart from one
-- under way (sql/notify.sql, NotifyFailed and NotifyPromote).
--
-- Both have their next attempt ahead; a delivery to the channel makes the
-- rows waiting in backoff due at once, and a row under way must never be,
-- or two replicas would send it at once. Rows of an older build (or
-- written by an older replica while the cluster is upgraded) are false:
-- they wait out their backoff as before.
ALTER TABLE qinglong.notification_outbox
    ADD COLUMN backing_off boolean NOT NULL DEFAULT false;
