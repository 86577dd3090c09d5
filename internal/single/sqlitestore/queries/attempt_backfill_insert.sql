-- Attempt 1 of a Run a backfill admitted, as attempt_admit_insert.sql
-- writes one, marked backfilled: the dispatcher starts it after every
-- other queued Run (migration 0033).
INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms, backfilled) VALUES (?, ?, 1, ?, 'claimed', ?, 1)
