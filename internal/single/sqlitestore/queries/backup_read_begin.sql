-- Opens the read transaction a backup copies the database in, step by
-- step (see backup_pin_snapshot.sql): a read, so in WAL mode the server's
-- writer never waits for it.
BEGIN DEFERRED
