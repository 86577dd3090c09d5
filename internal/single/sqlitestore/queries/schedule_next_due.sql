-- The earliest due time (cursor + jitter) strictly after the observation time among enabled,
-- unpaused schedule rows, read with the page in the same read transaction, so the
-- scheduler can wake when it falls due instead of on its next cadence
-- tick. It decides nothing: the next take reads the clock again. One
-- descent of the due index (min over its leading column with a range
-- bound), whatever the table holds. A row it names that a take would not
-- return (an inactive project, a disabled revision) only makes the
-- scheduler wake once for nothing: the next read starts after it.
SELECT min(next_fire_at_ms + due_offset_ms) FROM trigger_schedules
WHERE enabled = 1 AND paused = 0 AND (next_fire_at_ms IS NULL OR due_offset_ms IS NOT NULL) AND next_fire_at_ms + due_offset_ms > ?
