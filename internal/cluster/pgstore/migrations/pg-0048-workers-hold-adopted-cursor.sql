-- The hold for workers (docs/operations.md, "Backup and restore"): at most
-- one row, the end (database time) of the hold a replica decided at its
-- start on a database no replica ran on for longer than a run lease while
-- workers were live there. It is recorded before that replica's startup
-- recovery marks those workers' sessions and attempts expired, so a
-- replica starting meanwhile reads the hold that recovery does not erase
-- and holds with it. The runtime role writes it and never deletes it: a
-- hold whose end passed is no longer in force.
CREATE TABLE qinglong.workers_hold (
    only_row      boolean NOT NULL PRIMARY KEY DEFAULT true CHECK (only_row),
    replica_id    text    NOT NULL CHECK (length(replica_id) BETWEEN 1 AND 128),
    decided_at_ms bigint  NOT NULL CHECK (decided_at_ms >= 0),
    until_ms      bigint  NOT NULL CHECK (until_ms > decided_at_ms)
);

-- The position a handed-over state gave the trigger's schedule (`ql apply
-- --adopt-state`), kept after its schedule runs here: adopting the same
-- position again is then said to be done already, not refused as a move
-- of a schedule that runs here. NULL: never adopted.
ALTER TABLE qinglong.trigger_schedules ADD COLUMN adopted_cursor_ms bigint;
