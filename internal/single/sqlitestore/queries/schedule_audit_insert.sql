-- Appends the audit record of a pause or resume (or of the publish that
-- enables or disables a trigger), in its transaction.
INSERT INTO trigger_schedule_audit (trigger_id, action, actor, note, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)
