-- Events 1 (?3, run.created) and 2 (?4, run.queued) of each Run
-- run_page_insert wrote, from the same JSON array (?1) at the page's time
-- ?2: the payloads are the ones the single-decision path writes, keys in
-- the same (sorted) order, built from ids and numbers only. ?5 is the
-- executor.
INSERT INTO run_events (run_id, seq, name, payload, created_at_ms)
SELECT value ->> 0, 1, ?3,
       json_object('idempotencyKey', value ->> 7, 'scheduledForMs', value ->> 8,
                   'triggerId', value ->> 4, 'triggerRevision', value ->> 5), ?2
FROM jsonb_each(?1)
UNION ALL
SELECT value ->> 0, 2, ?4, json_object('attemptId', value ->> 10, 'executor', ?5), ?2
FROM jsonb_each(?1)
