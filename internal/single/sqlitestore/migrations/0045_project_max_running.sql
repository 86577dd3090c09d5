-- A project may cap how many of its Runs hold a slot (dispatching or
-- running) at once, so that one team's runaway trigger or backfill cannot
-- take every slot of a shared server; 0 is no cap, as every project had
-- before. The dispatcher's queue (attempts_pending.sql) passes over the
-- Runs of a project at its cap, and a start (AttemptStart) refuses one,
-- in the write transaction that takes the slot, so the cap is exact. The
-- bound is project.MaxMaxRunning's.
ALTER TABLE projects ADD COLUMN max_running INTEGER NOT NULL DEFAULT 0 CHECK (max_running BETWEEN 0 AND 10000);
