-- A backup's copy records when its snapshot was taken (one row, written by
-- the backup into the copy itself, so copy and time cannot part). The
-- first server started on the copy says it was restored from a backup
-- taken then — occurrences the old server admitted after it may run again,
-- and credentials changed since are back — and deletes the row, so the
-- next start is quiet. A database that was never a backup's copy has none.
CREATE TABLE backup_snapshot (
  only_row    INTEGER PRIMARY KEY CHECK (only_row = 1),
  taken_at_ms INTEGER NOT NULL
) STRICT;

-- The ledger gains the reason such a start passes over the occurrences the
-- copy says were missed when told not to catch them up (`--after-restore
-- skip-missed`, schedule.PassRestored). SQLite cannot change a CHECK
-- constraint in place: both tables are rebuilt with their rows, as 0024
-- rebuilt them.
CREATE TABLE occurrence_ledger_new (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  seq                   INTEGER NOT NULL CHECK (seq >= 1),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived', 'clock_went_back', 'restored')),
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
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived', 'clock_went_back', 'restored')),
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
