-- Attempt 1 of a Run a backfill admitted, as attempt_admit_insert.sql
-- writes one, marked backfilled: the dispatcher starts it after every
-- other queued Run (migration 0033). It carries its Run's project, as
-- every attempt does (migration 0048).
INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms, backfilled, project_id)
VALUES (?1, ?2, 1, ?3, 'claimed', ?4, 1, (SELECT r.project_id FROM runs r WHERE r.id = ?2))
