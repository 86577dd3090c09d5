-- Retention deletes a lost Run as it deletes a finished one, once it has
-- been lost for the runs rule's age (its finished_at_ms is when it was
-- found lost): a lost Run waits for a decision, but one nobody makes must
-- not keep its attempts, events and log chunks for ever. The runs rule
-- reads its candidates through this index, so its condition takes lost
-- Runs in. Building it reads the whole table and holds writes to runs
-- meanwhile, as docs/operations.md tells operators.
DROP INDEX qinglong.runs_finished_idx;
CREATE INDEX runs_finished_idx ON qinglong.runs (finished_at_ms)
    WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
