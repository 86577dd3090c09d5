-- pg-0004: the occurrence ledger (docs/architecture.md, "The occurrence
-- ledger") and the pause state of a schedule row with its audit trail.

-- Pause is schedule state, not a trigger revision: a paused row is not
-- schedulable, so no claim takes it and the claim's index does not hold
-- it. paused_at_ms/resumed_at_ms keep the last pause (database time),
-- which the next decision reads to record what fell due in it as paused.
ALTER TABLE qinglong.trigger_schedules
    ADD COLUMN paused        boolean NOT NULL DEFAULT false,
    ADD COLUMN pause_note    text CHECK (length(pause_note) <= 1000),
    ADD COLUMN paused_at_ms  bigint CHECK (paused_at_ms >= 0),
    ADD COLUMN resumed_at_ms bigint CHECK (resumed_at_ms >= paused_at_ms),
    ADD CONSTRAINT trigger_schedules_pause_shape CHECK (NOT paused OR (paused_at_ms IS NOT NULL AND resumed_at_ms IS NULL));

-- One row per entry a committed decision passed over, inserted by the
-- statement that moved the cursor past it. seq numbers a trigger's entries
-- from 1; every ledger-keep-th entry folds the entries older than the
-- newest ledger-keep ones into occurrence_ledger_compacted and deletes
-- them, in the same statement: the runtime's only DELETE.
CREATE TABLE qinglong.occurrence_ledger (
    trigger_id            uuid    NOT NULL REFERENCES qinglong.triggers (id),
    seq                   bigint  NOT NULL CHECK (seq >= 1),
    trigger_revision      bigint  NOT NULL CHECK (trigger_revision BETWEEN 1 AND 2147483647),
    reason                text    NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled')),
    first_scheduled_at_ms bigint  NOT NULL CHECK (first_scheduled_at_ms >= 0),
    last_scheduled_at_ms  bigint  NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
    occurrence_count      bigint  NOT NULL CHECK (occurrence_count >= 1),
    at_least              boolean NOT NULL,
    recorded_at_ms        bigint  NOT NULL CHECK (recorded_at_ms >= 0),
    PRIMARY KEY (trigger_id, seq)
);

-- Per trigger and reason, the total of the entries compacted so far.
CREATE TABLE qinglong.occurrence_ledger_compacted (
    trigger_id            uuid    NOT NULL REFERENCES qinglong.triggers (id),
    reason                text    NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled')),
    trigger_revision      bigint  NOT NULL CHECK (trigger_revision BETWEEN 1 AND 2147483647),
    first_scheduled_at_ms bigint  NOT NULL CHECK (first_scheduled_at_ms >= 0),
    last_scheduled_at_ms  bigint  NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
    occurrence_count      bigint  NOT NULL CHECK (occurrence_count >= 1),
    at_least              boolean NOT NULL,
    recorded_at_ms        bigint  NOT NULL CHECK (recorded_at_ms >= 0),
    PRIMARY KEY (trigger_id, reason)
);

-- Who paused or resumed a trigger, when (database time) and why;
-- append-only, written by the admin role in the pause's transaction.
CREATE TABLE qinglong.trigger_schedule_audit (
    id         uuid   NOT NULL PRIMARY KEY,
    trigger_id uuid   NOT NULL REFERENCES qinglong.triggers (id),
    action     text   NOT NULL CHECK (action IN ('pause', 'resume')),
    actor      text   NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
    note       text   CHECK (length(note) <= 1000),
    at_ms      bigint NOT NULL CHECK (at_ms >= 0)
);
CREATE INDEX trigger_schedule_audit_trigger_idx ON qinglong.trigger_schedule_audit (trigger_id, at_ms);
