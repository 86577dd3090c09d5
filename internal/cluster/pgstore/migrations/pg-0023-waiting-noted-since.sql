-- pg-0023: the sweep notes a queued Run as waiting only once it has been
-- queued for the grace (sql/workers_sweep.sql, SweepNoteWaiting), so the
-- index of queued Runs not noted yet carries queued_at_ms after the task
-- revision: each revision's Runs that have waited the grace are read as
-- one range of it, and the Runs queued more recently are never read.
DROP INDEX qinglong.runs_queued_unnoted_idx;
CREATE INDEX runs_queued_unnoted_idx ON qinglong.runs (task_id, task_revision, queued_at_ms, id)
    WHERE state = 'queued' AND waiting_noted_at_ms IS NULL;
