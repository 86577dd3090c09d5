-- pg-0044: a trigger's Runs of one finished state, found by an index of
-- that trigger's finished Runs.
--
-- A listing by a finished state within one trigger (`ql runs list
-- --trigger T --state failed`, the console's trigger page filtered by a
-- state) had two plans, each reading what grows with history: the
-- trigger's whole listing index, filtering out its Runs of other states,
-- or the state's index of finished Runs, filtering out other triggers'.
-- This index holds finished Runs only, so an admission (a queued Run)
-- writes no entry; a Run enters it once, as it finishes, beside
-- runs_finished_state_idx. The listing names the finished states'
-- condition (runs.go), so the planner may take it.
--
-- It takes it only when it knows that a trigger's share of a state is not
-- the trigger's share of the table: a trigger with a long history of
-- successes and a few failures looks, column by column, as if most
-- failures were its own, and the state's index then seems as cheap. The
-- statistics below record the common (trigger, state) pairs together; they
-- cost ANALYZE a sample, no write.
--
-- An unfinished state within a trigger needs neither: it is read among
-- the unfinished Runs (runs_unfinished_trigger_idx, runs_unfinished_state_idx),
-- never among the finished ones however many they are.
CREATE INDEX runs_trigger_finished_state_idx ON qinglong.runs (trigger_id, state, id DESC)
    WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');
CREATE STATISTICS qinglong.runs_trigger_state_stats (mcv) ON trigger_id, state FROM qinglong.runs;
