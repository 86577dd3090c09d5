-- A trigger's newest audit records, newest first, for `ql triggers show`:
-- the id is the order of insertion (two records may share a millisecond),
-- read backwards along the (trigger_id, id) index and stopped at the limit.
SELECT action, actor, note, at_ms FROM trigger_schedule_audit WHERE trigger_id = ?1 ORDER BY id DESC LIMIT ?2
