-- sqlite-0002-occurrence-ledger: the occurrence ledger (every nominal
-- occurrence a decision passes over without a Run, and why) and the pause
-- state of a schedule row with its audit trail.

-- Pause is schedule state, not a trigger revision: a paused row is never
-- taken. paused_at_ms/resumed_at_ms keep the last pause, which the next
-- decision reads to record what fell due in it as paused.
ALTER TABLE trigger_schedules ADD COLUMN paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1));
ALTER TABLE trigger_schedules ADD COLUMN pause_note TEXT;
ALTER TABLE trigger_schedules ADD COLUMN paused_at_ms INTEGER;
ALTER TABLE trigger_schedules ADD COLUMN resumed_at_ms INTEGER;

-- The take's index, now without paused rows: a paused row costs a take
-- nothing, however long it stays paused.
DROP INDEX trigger_schedules_due;
CREATE INDEX trigger_schedules_due ON trigger_schedules (next_fire_at_ms, project_id, trigger_id) WHERE enabled = 1 AND paused = 0;

-- One row per entry a committed decision passed over, written in the
-- transaction that moved the cursor past it. seq counts a trigger's
-- entries from 1; every LedgerKeep-th entry folds the entries older than
-- the newest LedgerKeep into occurrence_ledger_compacted.
CREATE TABLE occurrence_ledger (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  seq                   INTEGER NOT NULL CHECK (seq >= 1),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled')),
  first_scheduled_at_ms INTEGER NOT NULL,
  last_scheduled_at_ms  INTEGER NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
  occurrence_count      INTEGER NOT NULL CHECK (occurrence_count >= 1),
  at_least              INTEGER NOT NULL CHECK (at_least IN (0, 1)),
  recorded_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (trigger_id, seq)
) STRICT, WITHOUT ROWID;

-- Per trigger and reason, the total of the entries compacted so far.
CREATE TABLE occurrence_ledger_compacted (
  trigger_id            TEXT NOT NULL REFERENCES triggers (id),
  reason                TEXT NOT NULL CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled')),
  trigger_revision      INTEGER NOT NULL CHECK (trigger_revision >= 1),
  first_scheduled_at_ms INTEGER NOT NULL,
  last_scheduled_at_ms  INTEGER NOT NULL CHECK (last_scheduled_at_ms >= first_scheduled_at_ms),
  occurrence_count      INTEGER NOT NULL CHECK (occurrence_count >= 1),
  at_least              INTEGER NOT NULL CHECK (at_least IN (0, 1)),
  recorded_at_ms        INTEGER NOT NULL,
  PRIMARY KEY (trigger_id, reason)
) STRICT, WITHOUT ROWID;

-- Who paused or resumed a trigger, when, and why; append-only.
CREATE TABLE trigger_schedule_audit (
  id         INTEGER PRIMARY KEY,
  trigger_id TEXT NOT NULL REFERENCES triggers (id),
  action     TEXT NOT NULL CHECK (action IN ('pause', 'resume')),
  actor      TEXT NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  note       TEXT CHECK (length(note) <= 1000),
  at_ms      INTEGER NOT NULL
) STRICT;
CREATE INDEX trigger_schedule_audit_trigger ON trigger_schedule_audit (trigger_id, id);
