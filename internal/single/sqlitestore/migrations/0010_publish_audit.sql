-- Who published definitions over the HTTP API (a token and an address),
-- when, to which project, and a summary of what changed; written in the
-- publish's transaction, append-only.
CREATE TABLE publish_audit (
  id       INTEGER PRIMARY KEY,
  project  TEXT NOT NULL CHECK (length(project) BETWEEN 1 AND 128),
  actor    TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  summary  TEXT NOT NULL CHECK (length(summary) <= 1000),
  at_ms    INTEGER NOT NULL
) STRICT;
