-- A backup's copy leaves WAL mode, which the online backup copies from
-- the live file's header: a file on its own, with no -wal or -shm file
-- beside it to be lost or mismatched when it is moved or archived (a
-- server started on it turns WAL back on).
PRAGMA journal_mode = DELETE
