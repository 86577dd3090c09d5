-- The newest time the store's clock recorded, among the writes a clock
-- read behind it would be acted on for: the latest write of a schedule row
-- a clock that went back has moved back (schedule.Reanchorer: an enabled
-- trigger's row with a cursor; every decision, pause and resume rewrites
-- its updated_at_ms), and the last run event appended (every Run's
-- admission, start and end appends one). The last event by rowid, not the
-- latest by time: once a Run is recorded after a clock read ahead was
-- taken as right, the time that clock gave stops counting. The schedule
-- rows, one per trigger, are read whole, as the reanchor check reads them.
SELECT max(coalesce((SELECT max(updated_at_ms) FROM trigger_schedules WHERE enabled = 1 AND next_fire_at_ms IS NOT NULL), 0),
           coalesce((SELECT created_at_ms FROM run_events ORDER BY rowid DESC LIMIT 1), 0))
