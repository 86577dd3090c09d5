-- The ledger gains the reason an occurrence is passed over when it already
-- has its Run: admitted while the database clock read later than it reads
-- now, and due again once the clock went back and the check moved its
-- trigger's cursor back before it (sql/reanchor.sql). The runtime role
-- writes those entries in the admission's transaction, as it writes every
-- other reason an admission passes an occurrence over.
ALTER TABLE qinglong.occurrence_ledger DROP CONSTRAINT occurrence_ledger_reason_check;
ALTER TABLE qinglong.occurrence_ledger ADD CONSTRAINT occurrence_ledger_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived',
                      'clock_went_back'));
ALTER TABLE qinglong.occurrence_ledger_compacted DROP CONSTRAINT occurrence_ledger_compacted_reason_check;
ALTER TABLE qinglong.occurrence_ledger_compacted ADD CONSTRAINT occurrence_ledger_compacted_reason_check
    CHECK (reason IN ('misfire', 'collapsed', 'catch_up_window', 'paused', 'outside_bounds', 'disabled', 'overlap', 'republished', 'project_archived',
                      'clock_went_back'));
