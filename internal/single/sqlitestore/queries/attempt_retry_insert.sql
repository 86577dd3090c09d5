-- Attempt N + 1 of a retried Run: claimed, with no owner, available once
-- the backoff has passed (the Run waits in retry_wait until the requeue).
-- The unique (run_id, number) makes a second one impossible.
INSERT INTO attempts (id, run_id, number, executor, state, available_at_ms, created_at_ms) VALUES (?, ?, ?, ?, 'claimed', ?, ?)
