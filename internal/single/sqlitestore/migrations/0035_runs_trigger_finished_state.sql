-- A Runs listing of one trigger filtered by a finished state (the console's
-- Runs page with a trigger and a state, `ql runs list --trigger T --state
-- failed`, the API's ?trigger=&state=) reads the newest entries of that
-- trigger's state here, a range in id order, however many Runs of other
-- states the trigger's history holds. Without it such a listing walked the
-- trigger's whole history (runs_trigger) backwards looking for a rare
-- state. Only finished Runs are in it, so an admission writes no entry; a
-- Run enters it once, as it finishes. A trigger's unfinished Runs are few
-- and listed through runs_unfinished_trigger.
CREATE INDEX runs_trigger_finished_state ON runs (trigger_id, state, id) WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
