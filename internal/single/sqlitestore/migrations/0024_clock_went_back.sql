-- The ledger gains the reason a commit passes over an occurrence that
-- already has its Run: one admitted while the clock read later than it
-- does now, before a cursor was moved back after the clock went back
-- (schedule.PassClockWentBack). SQLite cannot change a CHECK constraint in
-- place: both tables are rebuilt with their rows, as 0014 rebuilt them.
CREATE TABLE occurrence_ledger_new (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  seq                   INTEGER NOT NULL CHECK (seq >= 1),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived', 'clock_went_back')),
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
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived', 'clock_went_back')),
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
