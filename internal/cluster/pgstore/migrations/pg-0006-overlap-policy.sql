-- Overlap policy: what an occurrence does while an earlier Run of its
-- trigger is unfinished. Part of the revision (and of its content digest,
-- only when set): NULL is allow, so every existing revision keeps its
-- meaning and its digest.
ALTER TABLE qinglong.trigger_revisions
    ADD COLUMN overlap_policy text CHECK (overlap_policy IN ('skip', 'queue_one', 'cancel_previous'));

-- The ledger gains the reason an overlap policy passes an occurrence over.
ALTER TABLE qinglong.occurrence_ledger DROP CONSTRAINT occurrence_ledger_reason_check;
ALTER TABLE qinglong.occurrence_ledger ADD CONSTRAINT occurrence_ledger_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap'));
ALTER TABLE qinglong.occurrence_ledger_compacted DROP CONSTRAINT occurrence_ledger_compacted_reason_check;
ALTER TABLE qinglong.occurrence_ledger_compacted ADD CONSTRAINT occurrence_ledger_compacted_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap'));

-- The admission of a trigger with an overlap policy reads its unfinished
-- Runs under the schedule row's lock: one probe of this index, which holds
-- only the Runs not yet finished.
CREATE INDEX runs_unfinished_trigger_idx ON qinglong.runs (trigger_id, id)
    WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');

-- A Run admitted under queue_one behind an unfinished Run of its trigger
-- waits: no dispatcher grants it while an earlier Run of the trigger is
-- unfinished.
ALTER TABLE qinglong.runs ADD COLUMN waits_for_previous boolean NOT NULL DEFAULT false;
