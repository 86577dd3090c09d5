-- The earliest backoff end of the attempts waiting to retry: one probe of
-- the partial index attempts_backoff however many Runs wait, so the
-- dispatcher reads it every round and writes only once one is due.
SELECT min(available_at_ms) FROM attempts WHERE state = 'claimed' AND available_at_ms IS NOT NULL
