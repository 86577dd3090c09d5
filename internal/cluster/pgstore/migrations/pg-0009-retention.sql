-- pg-0006: retention. The maintenance role deletes finished Runs after an
-- age with their attempts, events and log chunks, and old logs; these
-- indexes let each rule read only what it deletes.

-- Finished Runs, oldest first: the runs rule reads one range of this
-- index up to its cutoff, however many Runs are kept.
CREATE INDEX runs_finished_idx ON qinglong.runs (finished_at_ms)
    WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out');

-- The first chunk of every log still held, oldest first: the logs rule
-- and the cap find the attempts whose logs they delete through it. Chunks
-- are only ever inserted, so it costs a log append one index entry per
-- attempt; an index on attempts.log_bytes would make every append's
-- update of the attempt a non-HOT one.
CREATE INDEX run_log_chunks_first_idx ON qinglong.run_log_chunks (created_at_ms, attempt_id)
    WHERE log_offset = 0;
