-- Attempt N + 1 of a retried Run: claimed, with no owner, available once
-- the backoff has passed (the Run waits in retry_wait until the requeue).
-- The unique (run_id, number) makes a second one impossible. It keeps the
-- ended attempt's backfilled mark: a backfill's retry still waits behind
-- the other queued Runs, and its project (migration 0048), the Run's.
INSERT INTO attempts (id, run_id, number, executor, state, available_at_ms, created_at_ms, backfilled, project_id)
SELECT ?, ?, ?, ?, 'claimed', ?, ?, backfilled, project_id FROM attempts WHERE id = ?
