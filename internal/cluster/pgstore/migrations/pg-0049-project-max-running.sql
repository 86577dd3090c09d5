-- A project may cap how many of its Runs hold a slot (dispatching or
-- running) at once, so that one team's runaway trigger or backfill cannot
-- take every worker slot of a shared cluster; 0 is no cap, as every
-- project had before. A worker's pull (workers_dispatch.sql) grants a
-- capped project's Runs only under the project's transaction-scoped
-- advisory lock, counting its Runs holding a slot after it took the lock,
-- so concurrent pulls never grant past the cap. The bound is
-- project.MaxMaxRunning's.
ALTER TABLE qinglong.projects ADD COLUMN max_running integer NOT NULL DEFAULT 0 CHECK (max_running BETWEEN 0 AND 10000);
-- A capped project's Runs queued or holding a slot, read by every pull
-- that may grant one of its Runs (CappedProjectsLock, Dispatch): whether
-- it has a queued Run (the first entry of its queued range) and how many
-- hold a slot (its dispatching and running ranges), whatever the history
-- of finished Runs; a Run leaves it as it finishes.
-- Keyed by the id's text, which only those reads name: a listing of one
-- project's Runs in a state keeps its own index, ordered by id, rather
-- than sort a queued backlog read from this one.
CREATE INDEX runs_project_slot_idx ON qinglong.runs ((project_id::text), state) WHERE state IN ('queued', 'dispatching', 'running');
