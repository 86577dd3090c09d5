-- Per-trigger time policies — jitter, startAt/endAt bounds and the
-- fire_once catch-up window — on trigger revisions; each schedule row's
-- jitter, by which it falls due; and the due time each Run was admitted
-- for. Absent policies are jitter_ms 0 and NULL bounds and window, so every
-- existing revision keeps its meaning and its content digest.
ALTER TABLE trigger_revisions ADD COLUMN jitter_ms INTEGER NOT NULL DEFAULT 0 CHECK (jitter_ms BETWEEN 0 AND 3600000);
ALTER TABLE trigger_revisions ADD COLUMN start_at_ms INTEGER CHECK (start_at_ms > 0);
ALTER TABLE trigger_revisions ADD COLUMN end_at_ms INTEGER CHECK (end_at_ms > 0);
ALTER TABLE trigger_revisions ADD COLUMN catch_up_window_ms INTEGER CHECK (catch_up_window_ms BETWEEN 0 AND 31622400000);

-- next_fire_at_ms stays the nominal cursor (the fence, the Run's scheduled
-- time and idempotency key); the row falls due at next_fire_at_ms +
-- due_offset_ms, the cursor occurrence's jitter, written with the cursor by
-- every commit. An offset rather than an instant, so a row without jitter
-- (offset 0) falls due at its cursor whoever moved it. NULL with a cursor:
-- the trigger's endAt lies before its next occurrence; the row is ended and
-- never taken again.
ALTER TABLE trigger_schedules ADD COLUMN due_offset_ms INTEGER DEFAULT 0 CHECK (due_offset_ms BETWEEN 0 AND 3600000);

-- The jittered instant a Run was admitted for (NULL for a Run admitted
-- before this column: its scheduled time).
ALTER TABLE runs ADD COLUMN due_at_ms INTEGER;

-- The take reads this index in claim order — uninitialised rows (a NULL
-- due time) first, then by due time — and stops after one page; ended and
-- paused rows are not in it.
DROP INDEX trigger_schedules_due;
CREATE INDEX trigger_schedules_due ON trigger_schedules ((next_fire_at_ms + due_offset_ms), project_id, trigger_id, next_fire_at_ms, due_offset_ms, enabled, paused)
  WHERE enabled = 1 AND paused = 0 AND (next_fire_at_ms IS NULL OR due_offset_ms IS NOT NULL);
