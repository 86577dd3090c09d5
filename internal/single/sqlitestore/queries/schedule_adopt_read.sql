-- Whether a trigger's schedule row has decided an occurrence in this
-- database: it admitted one (last_scheduled_at_ms is kept across
-- publishes) or passed one over (the ledger, or its compacted totals).
-- Such a row's schedule runs here, so a handed-over position must not
-- move its cursor (schedule.Adopter). No row: no such trigger. Also the
-- position adopted before, if any, and the cursor: the same position
-- adopted again changes nothing.
SELECT s.last_scheduled_at_ms IS NOT NULL
       OR EXISTS (SELECT 1 FROM occurrence_ledger l WHERE l.trigger_id = s.trigger_id)
       OR EXISTS (SELECT 1 FROM occurrence_ledger_compacted c WHERE c.trigger_id = s.trigger_id),
       s.adopted_cursor_ms, s.next_fire_at_ms
FROM trigger_schedules s WHERE s.trigger_id = ?
