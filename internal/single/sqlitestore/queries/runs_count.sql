-- How many Runs an index a migration builds reads (IndexBuild): the
-- smallest index of every Run, once per migration that builds one.
SELECT count(*) FROM runs
