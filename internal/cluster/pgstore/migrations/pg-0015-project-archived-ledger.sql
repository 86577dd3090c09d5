-- The ledger gains the reason a project's reactivation passes over the
-- occurrences that fell due while the project was archived. The
-- reactivation (admin role) writes those entries in the transaction that
-- sets the project active.
ALTER TABLE qinglong.occurrence_ledger DROP CONSTRAINT occurrence_ledger_reason_check;
ALTER TABLE qinglong.occurrence_ledger ADD CONSTRAINT occurrence_ledger_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived'));
ALTER TABLE qinglong.occurrence_ledger_compacted DROP CONSTRAINT occurrence_ledger_compacted_reason_check;
ALTER TABLE qinglong.occurrence_ledger_compacted ADD CONSTRAINT occurrence_ledger_compacted_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived'));
