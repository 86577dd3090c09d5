-- pg-0006: retention. The maintenance role deletes finished Runs after an
-- age with their attempts, events and log chunks, and old logs; these
-- indexes let each rule read only what it deletes.

-- Finished Runs, oldest first: the runs rule reads one range of this
-- index up to its cutoff, however many Runs are kept.
CREATE INDEX runs_finished_idx ON qinglong.runs (finished_at_ms)
    WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out');

-- Attempts that still hold log bytes, oldest first, with their sizes: the
-- logs rule reads a range, the cap sums the sizes from the index alone.
-- Attempts still running sort last (NULL finish time).
CREATE INDEX attempts_logs_idx ON qinglong.attempts (finished_at_ms, log_bytes)
    WHERE log_bytes > 0;
