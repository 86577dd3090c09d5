-- Attempt 1 of an admitted Run, claimed for the local executor; no owner
-- until a dispatcher starts it. The last parameter is the Run a
-- cancel_previous admission cancelled for it (the newest one), NULL for
-- any other: the attempt takes that Run's latest attempt's place in the
-- dispatcher's queue (migration 0036), its own place, never one that
-- attempt took over, and none behind a backfill's. The attempt carries its
-- Run's project, read from the Run (migration 0048: the dispatcher passes
-- over a capped project's attempts by it).
INSERT INTO attempts (id, run_id, number, executor, state, created_at_ms, place_of, project_id)
VALUES (?1, ?2, 1, ?3, 'claimed', ?4,
  (SELECT p.id FROM attempts p WHERE p.run_id = ?5 AND p.backfilled = 0 ORDER BY p.number DESC LIMIT 1),
  (SELECT r.project_id FROM runs r WHERE r.id = ?2))
