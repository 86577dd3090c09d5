-- Folds a trigger's ledger entries numbered up to ?2 into one total per
-- reason (span, count, newest revision), added to what earlier compactions
-- folded. Reads at most LedgerKeep entries: the entries below the last
-- compaction are already gone. `WHERE true` lets the upsert follow a SELECT.
INSERT INTO occurrence_ledger_compacted (trigger_id, reason, trigger_revision, first_scheduled_at_ms, last_scheduled_at_ms,
                                         occurrence_count, at_least, recorded_at_ms)
SELECT trigger_id, reason, max(trigger_revision), min(first_scheduled_at_ms), max(last_scheduled_at_ms),
       sum(occurrence_count), max(at_least), ?3
FROM occurrence_ledger
WHERE trigger_id = ?1 AND seq <= ?2 AND true
GROUP BY trigger_id, reason
ON CONFLICT (trigger_id, reason) DO UPDATE SET
  trigger_revision = max(trigger_revision, excluded.trigger_revision),
  first_scheduled_at_ms = min(first_scheduled_at_ms, excluded.first_scheduled_at_ms),
  last_scheduled_at_ms = max(last_scheduled_at_ms, excluded.last_scheduled_at_ms),
  occurrence_count = occurrence_count + excluded.occurrence_count,
  at_least = max(at_least, excluded.at_least),
  recorded_at_ms = excluded.recorded_at_ms
