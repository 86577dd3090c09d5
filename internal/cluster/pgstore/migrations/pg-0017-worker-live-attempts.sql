-- pg-0015: a credential's live attempts, whichever of its sessions holds
-- them (sql/workers_dispatch.sql, Dispatch).
--
-- A grant counts the attempts still leased to the worker's older sessions
-- against the credential's max concurrency, on every pull: this index
-- finds them by worker without walking the worker's past sessions.
CREATE INDEX attempts_worker_live_idx ON qinglong.attempts (worker_id)
    WHERE state IN ('claimed', 'starting', 'running') AND worker_id IS NOT NULL;
