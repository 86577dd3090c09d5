-- Attempt 1 of an admitted Run, claimed for the local executor; no owner
-- until a dispatcher starts it.
INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms) VALUES (?, ?, 1, ?, 'claimed', ?)
