-- pg-0026: why a notification failed, as a code (sql/notify.sql,
-- NotifyFailed).
--
-- A failed notification keeps why it failed as a stable code beside its
-- English text (notify.Reasons), so a page in another language says it
-- in its own words. NULL for a row never failed or delivered, and for one
-- whose last failure an older build recorded (before this migration, or
-- in the heartbeat an older replica takes to stop after it): those show
-- the text alone. A reason is never kept without its text. The runtime
-- role updates the whole table, this column with it.
ALTER TABLE qinglong.notification_outbox
    ADD COLUMN last_error_reason text,
    ADD CONSTRAINT notification_outbox_last_error_reason_shape CHECK (
        last_error_reason IS NULL OR (last_error_reason ~ '^[a-z][a-z_]{0,62}$' AND last_error IS NOT NULL)
    );
