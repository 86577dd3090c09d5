-- A Runs listing filtered by a finished state (the console's recent
-- failures, `ql runs list --state cancelled`, the same in one project)
-- reads the newest entries of that state here: a range of one of these
-- indexes in id order, however many Runs of other states the history
-- holds. Without them a state with few Runs walked the whole primary key
-- (or the project's index) backwards looking for them. Only finished Runs
-- are in them, so an admission (a queued Run) writes no entry; a Run
-- enters each once, as it finishes. The unfinished states are listed
-- through runs_unfinished_state, which holds only the unfinished Runs.
CREATE INDEX runs_finished_state ON runs (state, id) WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
CREATE INDEX runs_project_finished_state ON runs (project_id, state, id) WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
