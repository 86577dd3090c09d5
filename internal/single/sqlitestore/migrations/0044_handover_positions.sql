-- The position a handed-over state gave a trigger's schedule (`ql apply
-- --adopt-state`), kept after its schedule runs here: adopting the same
-- position again is then said to be done already, not refused as a move
-- of a schedule that runs here. NULL: never adopted.
ALTER TABLE trigger_schedules ADD COLUMN adopted_cursor_ms INTEGER;

-- The data directory the handover was exported from, so the refusal on a
-- copy of it elsewhere names the export as it was run. NULL: a handover
-- recorded before this.
ALTER TABLE handover ADD COLUMN data_dir TEXT;
