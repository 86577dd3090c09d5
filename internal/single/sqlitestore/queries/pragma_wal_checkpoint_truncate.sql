-- Writes every frame of the -wal file into the database file and empties
-- the -wal file; its first column is 1 when another connection kept it
-- from doing so.
PRAGMA wal_checkpoint(TRUNCATE)
