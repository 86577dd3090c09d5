-- Readers must never block the writer: the file must be in WAL mode.
PRAGMA journal_mode
