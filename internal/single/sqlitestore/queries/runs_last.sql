-- The newest Run of each trigger of a page of the triggers list (?1, a
-- JSON array of trigger ids): one probe of runs_trigger (trigger_id, id)
-- per trigger, whose last id is the Run admitted last (ids are UUIDv7, in
-- admission order). A trigger without a Run gives no row.
SELECT r.trigger_id, r.id, r.state, r.scheduled_for_ms, r.finished_at_ms
FROM json_each(?1) t
JOIN runs r ON r.id = (SELECT l.id FROM runs l WHERE l.trigger_id = t.value ORDER BY l.id DESC LIMIT 1)
