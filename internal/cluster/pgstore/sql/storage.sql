-- name: StorageDatabaseSize
-- What the cluster's database takes on disk. pg_database_size needs only
-- CONNECT on the database, which `ql db roles` grants every role, so the
-- runtime role reads it with no privilege added; it counts every schema
-- of the database (another application's too, where the database is
-- shared), as the disk does. Its cost is a stat per relation file.
SELECT pg_database_size(current_database())

-- name: StorageRunLogsSize
-- What the run logs take: their chunks' table with its indexes and TOAST.
-- pg_total_relation_size checks no privilege and reads no row.
SELECT pg_total_relation_size('qinglong.run_log_chunks'::regclass)
