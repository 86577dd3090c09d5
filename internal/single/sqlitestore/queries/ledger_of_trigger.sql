-- A trigger's newest ledger entries, newest first, then its compacted
-- totals (oldest history) — what `ql triggers show` prints. Reads the
-- primary keys backwards and stops at the limit.
-- The ledger is append-only, so an occurrence it passed over stays passed
-- over when a backfill later gives it a Run; the last column says how many
-- Runs with the clock's key (a backfill's: the clock admitted none there)
-- an entry's stretch has, read through runs_trigger as a backfill reads
-- them. A compacted total spans stretches apart, with the clock's own Runs
-- between them, so it says none.
SELECT trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms, compacted,
       CASE WHEN compacted = 0 THEN (
         SELECT count(*) FROM runs r
         WHERE r.trigger_id = ?1 AND r.scheduled_for_ms BETWEEN first_scheduled_at_ms AND last_scheduled_at_ms
           AND substr(r.idempotency_key, 1, 12) = 'ql3:cron:v1:') ELSE 0 END
FROM (
  SELECT 0 AS part, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms, 0 AS compacted
  FROM occurrence_ledger WHERE trigger_id = ?1
  UNION ALL
  SELECT 1, 0, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms, 1
  FROM occurrence_ledger_compacted WHERE trigger_id = ?1
)
ORDER BY part, seq DESC, first_scheduled_at_ms DESC
LIMIT ?2
