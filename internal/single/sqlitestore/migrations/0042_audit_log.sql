-- The audit trail of the changes people make (tokens, console users,
-- project pauses, notification retries): who, what, which object, when
-- (the store's time), written in the transaction of the change it records.
-- It references nothing, so that a deleted user or token keeps its
-- records, and holds no secret: a token's value, a password or its hash
-- and a command's environment never reach it.
CREATE TABLE audit_log (
  id          TEXT PRIMARY KEY,
  at_ms       INTEGER NOT NULL,
  actor       TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  action      TEXT NOT NULL CHECK (action GLOB '[a-z]*.[a-z]*'),
  object_kind TEXT NOT NULL,
  object_id   TEXT NOT NULL,
  object_name TEXT NOT NULL,
  project     TEXT NOT NULL DEFAULT '',
  note        TEXT NOT NULL DEFAULT '' CHECK (length(note) <= 1000)
) STRICT;
CREATE INDEX audit_log_at ON audit_log (at_ms, id);

-- Append-only: the single-node counterpart of the cluster's privilege
-- matrix, which grants no role UPDATE or DELETE on it.
CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TRIGGER audit_log_append_only_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
