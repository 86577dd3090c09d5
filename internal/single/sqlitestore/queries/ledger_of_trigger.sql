-- A trigger's newest ledger entries, newest first, then its compacted
-- totals (oldest history) — what `ql triggers show` prints. Reads the
-- primary keys backwards and stops at the limit.
SELECT trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms, compacted
FROM (
  SELECT 0 AS part, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms, 0 AS compacted
  FROM occurrence_ledger WHERE trigger_id = ?1
  UNION ALL
  SELECT 1, 0, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms, 1
  FROM occurrence_ledger_compacted WHERE trigger_id = ?1
)
ORDER BY part, seq DESC, first_scheduled_at_ms DESC
LIMIT ?2
