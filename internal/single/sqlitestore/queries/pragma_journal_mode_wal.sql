-- A vacuum's copy is written in rollback-journal mode whatever the
-- database's mode was; set back to WAL before it replaces the database,
-- so readers never block the writer from the first open on (the store
-- sets WAL on open too, but a read-only command opening the file first
-- may not change its mode).
PRAGMA journal_mode = WAL
