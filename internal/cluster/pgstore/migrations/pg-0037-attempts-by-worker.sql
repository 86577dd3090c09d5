-- pg-0037: the Runs a worker ran, newest first (sql/runs.sql's listing
-- by worker, `ql runs list --worker`).
--
-- Only live attempts were indexed by worker (attempts_worker_live_idx),
-- so listing what a worker ran walked every attempt. This index holds
-- each attempt a worker took, ordered by its Run's id as the listing is,
-- so a page of a worker's Runs reads its attempts newest first and stops.
CREATE INDEX attempts_worker_run_idx ON qinglong.attempts (worker_id, run_id DESC)
    WHERE worker_id IS NOT NULL;
