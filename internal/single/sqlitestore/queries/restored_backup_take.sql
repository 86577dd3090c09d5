-- The snapshot time of the backup this database was restored from, read
-- and forgotten in one write: only the first server started on the copy
-- says it.
DELETE FROM backup_snapshot RETURNING taken_at_ms
