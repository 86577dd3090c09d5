-- In a backup just written: the time its snapshot was taken, for the
-- first server started on the copy to say (restored_backup_take). A copy
-- of a copy not yet served replaces the older mark.
INSERT OR REPLACE INTO backup_snapshot (only_row, taken_at_ms) VALUES (1, ?1)
