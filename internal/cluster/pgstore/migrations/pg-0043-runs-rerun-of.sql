-- pg-0043: the Runs that re-run a Run, found by rerun_of.
--
-- A Run's page names the Runs that re-run it ("re-run as"); without an
-- index that lookup reads every Run. Only re-runs have a rerun_of, so the
-- index holds them alone: an admission by the clock, a run now or a
-- backfill writes no entry, and a re-run writes one. The lookup's
-- `rerun_of = $1` implies the condition (= is strict), so the planner
-- takes the partial index.
CREATE INDEX runs_rerun_of_idx ON qinglong.runs (rerun_of, id DESC) WHERE rerun_of IS NOT NULL;
