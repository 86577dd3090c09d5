-- A backup: the whole database as of one read transaction, written to a
-- new file. In WAL mode it reads a snapshot while the server goes on
-- writing, so the copy is consistent (a plain file copy of a live
-- database is not: the main file lags its -wal file).
VACUUM INTO ?
