-- Fragments that several statements share word for word (sqlload.go).

-- fragment: LedgerCompaction
-- Two CTEs of an admission write, after its "ledger" CTE (the entries it
-- inserted, with their per-trigger seq): every @ledger_keep-th entry of a
-- trigger folds the entries older than its newest @ledger_keep into their
-- per-reason totals ("compacted") and deletes them ("trimmed") — at most
-- @ledger_keep rows, once per @ledger_keep entries, so a trigger's ledger
-- stays bounded without a scan. The seq numbering (one per trigger, under
-- the schedule row's lock) makes every admission path compact at the same
-- entries.
compacted AS (
    INSERT INTO qinglong.occurrence_ledger_compacted AS c (trigger_id, reason, trigger_revision, first_scheduled_at_ms, last_scheduled_at_ms,
                                                         occurrence_count, at_least, recorded_at_ms)
    SELECT l.trigger_id, l.reason, max(l.trigger_revision), min(l.first_scheduled_at_ms), max(l.last_scheduled_at_ms),
           sum(l.occurrence_count)::bigint, bool_or(l.at_least), {{now_ms}}
      FROM ledger n
      JOIN qinglong.occurrence_ledger l ON l.trigger_id = n.trigger_id AND l.seq <= n.seq - @ledger_keep::bigint
     WHERE n.seq % @ledger_keep::bigint = 0
     GROUP BY l.trigger_id, l.reason
        ON CONFLICT (trigger_id, reason) DO UPDATE SET
           trigger_revision = greatest(c.trigger_revision, EXCLUDED.trigger_revision),
           first_scheduled_at_ms = least(c.first_scheduled_at_ms, EXCLUDED.first_scheduled_at_ms),
           last_scheduled_at_ms = greatest(c.last_scheduled_at_ms, EXCLUDED.last_scheduled_at_ms),
           occurrence_count = c.occurrence_count + EXCLUDED.occurrence_count,
           at_least = c.at_least OR EXCLUDED.at_least,
           recorded_at_ms = EXCLUDED.recorded_at_ms
    RETURNING 1
),
trimmed AS (
    DELETE FROM qinglong.occurrence_ledger l
     USING ledger n
     WHERE l.trigger_id = n.trigger_id AND n.seq % @ledger_keep::bigint = 0 AND l.seq <= n.seq - @ledger_keep::bigint
    RETURNING 1
),
