-- Trigger policies: per-trigger time policies — jitter, startAt/endAt bounds and the
-- fire_once catch-up window — on trigger revisions; the jittered due time
-- of each schedule row's cursor, which the claim orders and waits by; and
-- the due time each Run was admitted for.
--
-- Policies are part of the revision (and of its content digest, only when
-- set): absent is jitter_ms 0 and NULL bounds and window, so every existing
-- revision keeps its meaning and its digest.
ALTER TABLE qinglong.trigger_revisions
    ADD COLUMN jitter_ms          bigint NOT NULL DEFAULT 0 CHECK (jitter_ms BETWEEN 0 AND 3600000),
    ADD COLUMN start_at_ms        bigint CHECK (start_at_ms > 0),
    ADD COLUMN end_at_ms          bigint CHECK (end_at_ms > 0),
    ADD COLUMN catch_up_window_ms bigint CHECK (catch_up_window_ms BETWEEN 0 AND 31622400000),
    ADD CONSTRAINT trigger_revisions_bounds CHECK (end_at_ms > coalesce(start_at_ms, 0)),
    ADD CONSTRAINT trigger_revisions_catch_up_window CHECK (catch_up_window_ms IS NULL OR misfire_policy = 'fire_once');

-- next_fire_at_ms stays the nominal cursor (the fence, the Run's scheduled
-- time and idempotency key); the row falls due at next_fire_at_ms +
-- due_offset_ms, the cursor occurrence's jitter, written with the cursor by
-- every commit. It is kept as an offset rather than an instant so that
-- a row without jitter (offset 0) falls due at its cursor whoever moved
-- it. NULL with a cursor: the trigger's endAt lies before its next
-- occurrence, and the row is ended — never taken again.
ALTER TABLE qinglong.trigger_schedules
    ADD COLUMN due_offset_ms bigint DEFAULT 0 CHECK (due_offset_ms BETWEEN 0 AND 3600000),
    ADD CONSTRAINT trigger_schedules_ended_shape CHECK (due_offset_ms IS NOT NULL OR next_fire_at_ms IS NOT NULL);

-- The jittered instant a Run was admitted for (NULL for a Run admitted
-- before this column: its scheduled time).
ALTER TABLE qinglong.runs ADD COLUMN due_at_ms bigint CHECK (due_at_ms >= scheduled_for_ms);

-- Claim index 1, now in due-time order, without ended rows: uninitialised
-- rows (a NULL cursor) first, then due times.
DROP INDEX qinglong.trigger_schedules_unclaimed_order_idx;
CREATE INDEX trigger_schedules_unclaimed_order_idx
    ON qinglong.trigger_schedules ((next_fire_at_ms + due_offset_ms) NULLS FIRST, project_id, trigger_id)
    WHERE claim_owner IS NULL AND schedulable AND (next_fire_at_ms IS NULL OR due_offset_ms IS NOT NULL);
