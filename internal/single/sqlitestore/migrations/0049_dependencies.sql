-- The packages an admin declared on the Dependencies page (deps.Store):
-- one row per kind and name, the specifier the installer is given, and
-- the newest Run that installed it ('' before the first), whose state is
-- the package's. A removal deletes the row; the trail keeps who declared,
-- installed and removed what.
CREATE TABLE dependencies (
  kind          TEXT NOT NULL CHECK (kind IN ('node', 'python', 'linux')),
  name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 214),
  spec          TEXT NOT NULL CHECK (length(spec) BETWEEN 1 AND 214),
  run_id        TEXT NOT NULL DEFAULT '',
  at_ms         INTEGER NOT NULL,
  actor         TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  added_at_ms   INTEGER NOT NULL,
  PRIMARY KEY (kind, name)
) WITHOUT ROWID;
