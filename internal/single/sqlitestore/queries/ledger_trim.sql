-- Removes the entries ledger_compact.sql just folded, in the same
-- transaction: an entry is either in full or in its reason's total, never
-- both and never neither.
DELETE FROM occurrence_ledger WHERE trigger_id = ?1 AND seq <= ?2
