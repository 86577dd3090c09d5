-- The log files whose rows retention deleted and that it has still to
-- remove. A batch names them here in the transaction that deletes their
-- attempts (or forgets their logs) and removes them after its commit,
-- outside the writer; each row goes once its file is gone. A process
-- stopped between the commit and the removals, or a file the file system
-- refuses to remove, stays named here, and every pass removes what is left
-- first: no file stays on disk with nothing naming it, and no attempt
-- names a file that is gone. disk_bytes is what the file takes on disk
-- (retention.DiskBytes), which the log cap counts while it is there.
CREATE TABLE retention_logs (
  attempt_id TEXT NOT NULL PRIMARY KEY,
  run_id     TEXT NOT NULL,
  disk_bytes INTEGER NOT NULL CHECK (disk_bytes >= 0)
) STRICT;
