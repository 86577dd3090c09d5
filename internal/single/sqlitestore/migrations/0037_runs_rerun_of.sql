-- A Run's page names the Runs that re-run it ("re-run as"): a lookup by
-- rerun_of, which without an index reads every Run. Only re-runs have a
-- rerun_of, so the index holds them alone: an admission by the clock, a
-- run now or a backfill writes no entry, and a re-run writes one. A
-- lookup `rerun_of = ?` implies the condition, so SQLite takes the index.
CREATE INDEX runs_rerun_of ON runs (rerun_of, id) WHERE rerun_of IS NOT NULL;
