-- The ledger gains the reason a publish passes over the occurrences of the
-- revision it replaces that no decision had reached yet. The publish
-- (admin role) writes those entries in its own transaction.
ALTER TABLE qinglong.occurrence_ledger DROP CONSTRAINT occurrence_ledger_reason_check;
ALTER TABLE qinglong.occurrence_ledger ADD CONSTRAINT occurrence_ledger_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished'));
ALTER TABLE qinglong.occurrence_ledger_compacted DROP CONSTRAINT occurrence_ledger_compacted_reason_check;
ALTER TABLE qinglong.occurrence_ledger_compacted ADD CONSTRAINT occurrence_ledger_compacted_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished'));

-- `ql triggers enable|disable` publish a revision with `enabled` flipped
-- and record who asked in the schedule's audit trail.
ALTER TABLE qinglong.trigger_schedule_audit DROP CONSTRAINT trigger_schedule_audit_action_check;
ALTER TABLE qinglong.trigger_schedule_audit ADD CONSTRAINT trigger_schedule_audit_action_check
    CHECK (action IN ('pause', 'resume', 'enable', 'disable'));
