-- Failure notifications. A project's rules and channels (canonical JSON,
-- NULL for a project without any: every existing project keeps its
-- meaning) and the outbox of notifications to deliver. An outbox row is
-- written in the transaction that finishes the Run causing it, so a crash
-- after the commit loses no notification; (rule_key, subject) keeps one row
-- per rule and Run however often the finish is replayed. run_id has no
-- foreign key: the outbox must not keep a finished Run from being deleted
-- by retention.
ALTER TABLE projects ADD COLUMN notifications_json TEXT CHECK (notifications_json IS NULL OR json_valid(notifications_json));

CREATE TABLE notification_outbox (
  id                 TEXT PRIMARY KEY,
  project_id         TEXT NOT NULL REFERENCES projects (id),
  run_id             TEXT,
  rule_key           TEXT NOT NULL,
  subject            TEXT NOT NULL,
  event              TEXT NOT NULL,
  channel_json       TEXT NOT NULL CHECK (json_valid(channel_json)),
  payload_json       TEXT NOT NULL CHECK (json_valid(payload_json)),
  state              TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
  attempts           INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at_ms INTEGER NOT NULL,
  last_error         TEXT,
  created_at_ms      INTEGER NOT NULL,
  updated_at_ms      INTEGER NOT NULL,
  delivered_at_ms    INTEGER,
  UNIQUE (rule_key, subject)
) STRICT;

-- The delivery loop reads due pending rows in due order; listings read
-- by state, newest first.
CREATE INDEX notification_outbox_due ON notification_outbox (next_attempt_at_ms) WHERE state = 'pending';
CREATE INDEX notification_outbox_state ON notification_outbox (state, created_at_ms);
