-- Notification rules gain the events succeeded (a Run ended succeeded)
-- and finished (a Run ended succeeded, failed, timed out or lost), whose
-- rows the outbox takes beside the failure events'. A rule's scope (the
-- tasks and triggers it names) is part of the project's settings, JSON
-- already, and needs no column.
ALTER TABLE qinglong.notification_outbox DROP CONSTRAINT notification_outbox_event_check;
ALTER TABLE qinglong.notification_outbox ADD CONSTRAINT notification_outbox_event_check
    CHECK (event IN ('succeeded', 'finished', 'failed', 'timed_out', 'lost', 'skipped', 'recovered', 'consecutive_failures'));
