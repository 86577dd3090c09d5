-- The ledger gains the reason a publish passes over the occurrences of the
-- revision it replaces that no decision had reached yet; the publish writes
-- those entries in its own transaction. SQLite cannot change a CHECK
-- constraint in place: both tables are rebuilt with their rows.
CREATE TABLE occurrence_ledger_new (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  seq                   INTEGER NOT NULL CHECK (seq >= 1),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished')),
  first_scheduled_at_ms INTEGER NOT NULL,
  last_scheduled_at_ms  INTEGER NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
  occurrence_count      INTEGER NOT NULL CHECK (occurrence_count >= 1),
  at_least              INTEGER NOT NULL CHECK (at_least IN (0, 1)),
  recorded_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (trigger_id, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO occurrence_ledger_new SELECT * FROM occurrence_ledger;
DROP TABLE occurrence_ledger;
ALTER TABLE occurrence_ledger_new RENAME TO occurrence_ledger;

CREATE TABLE occurrence_ledger_compacted_new (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished')),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  first_scheduled_at_ms INTEGER NOT NULL,
  last_scheduled_at_ms  INTEGER NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
  occurrence_count      INTEGER NOT NULL CHECK (occurrence_count >= 1),
  at_least              INTEGER NOT NULL CHECK (at_least IN (0, 1)),
  recorded_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (trigger_id, reason)
) STRICT, WITHOUT ROWID;
INSERT INTO occurrence_ledger_compacted_new SELECT * FROM occurrence_ledger_compacted;
DROP TABLE occurrence_ledger_compacted;
ALTER TABLE occurrence_ledger_compacted_new RENAME TO occurrence_ledger_compacted;

-- `ql triggers enable|disable` publish a revision with `enabled` flipped
-- and record who asked in the schedule's audit trail.
CREATE TABLE trigger_schedule_audit_new (
  id         INTEGER PRIMARY KEY,
  trigger_id TEXT NOT NULL REFERENCES triggers (id),
  action     TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'enable', 'disable')),
  actor      TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  note       TEXT CHECK (length(note) <= 1000),
  at_ms      INTEGER NOT NULL
) STRICT;
INSERT INTO trigger_schedule_audit_new SELECT * FROM trigger_schedule_audit;
DROP TABLE trigger_schedule_audit;
ALTER TABLE trigger_schedule_audit_new RENAME TO trigger_schedule_audit;
CREATE INDEX trigger_schedule_audit_trigger ON trigger_schedule_audit (trigger_id, id);
