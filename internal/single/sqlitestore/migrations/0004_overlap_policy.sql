-- Overlap policy: what an occurrence does while an earlier Run of its
-- trigger is unfinished. Part of the revision (and of its content digest,
-- only when set): NULL is allow, so every existing revision keeps its
-- meaning and its digest.
ALTER TABLE trigger_revisions ADD COLUMN overlap_policy TEXT CHECK (overlap_policy IN ('skip', 'queue_one', 'cancel_previous'));

-- The ledger gains the reason an overlap policy passes an occurrence over.
-- SQLite cannot change a CHECK constraint in place: both tables are
-- rebuilt with their rows.
CREATE TABLE occurrence_ledger_new (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  seq                   INTEGER NOT NULL CHECK (seq >= 1),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap')),
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
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap')),
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

-- The admission of a trigger with an overlap policy counts its unfinished
-- Runs: one probe of this index, which holds only the Runs not yet
-- finished.
CREATE INDEX runs_unfinished_trigger ON runs (trigger_id, id)
  WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');

-- A Run admitted under queue_one behind an unfinished Run of its trigger
-- waits: the dispatcher does not start it while an earlier Run of the
-- trigger is unfinished.
ALTER TABLE runs ADD COLUMN waits_for_previous INTEGER NOT NULL DEFAULT 0 CHECK (waits_for_previous IN (0, 1));
