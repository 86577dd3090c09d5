-- Appends one occurrence ledger entry; runs only after the decision's
-- fenced cursor update touched its row, inside the same transaction (or
-- savepoint), so a raced or failed decision records nothing.
INSERT INTO occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms,
                               occurrence_count, at_least, recorded_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
