-- pg-0041: the Runs' state indexes split at the finish, so an admission
-- writes one state entry instead of two.
--
-- runs_state_listing_idx (state, id DESC) and runs_project_state_listing_idx
-- (project_id, state, id DESC) held every Run: each admitted (queued) Run
-- wrote an entry in both, and so did every later version of its row that
-- could not be updated in place. What reads them needs less:
--   * a listing by a finished state (the console's recent failures,
--     `ql runs list --state failed`, the same in one project) must read
--     only its page however long the history of other states: the two
--     indexes of finished Runs below, which an admission never enters
--     (a Run enters each once, as it finishes);
--   * a listing by an unfinished state, in the table or in a project, and
--     monitoring's count of each unfinished state read among the unfinished
--     Runs: one index of unfinished Runs by state, the project a filter.
-- The statements name the condition of the index they use (runs.go,
-- sql/monitor.sql): the planner takes a partial index only for a WHERE
-- that implies its condition.
DROP INDEX qinglong.runs_state_listing_idx;
DROP INDEX qinglong.runs_project_state_listing_idx;
CREATE INDEX runs_finished_state_idx ON qinglong.runs (state, id DESC)
    WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
CREATE INDEX runs_project_finished_state_idx ON qinglong.runs (project_id, state, id DESC)
    WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
CREATE INDEX runs_unfinished_state_idx ON qinglong.runs (state, id DESC)
    WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
