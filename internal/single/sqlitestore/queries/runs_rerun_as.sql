-- The Runs that re-run a Run, newest first, at most ?2 (a Run's page
-- names them: "re-run as"). runs_rerun_of holds only re-runs, and
-- rerun_of = ?1 implies its condition.
SELECT id FROM runs WHERE rerun_of = ?1 ORDER BY id DESC LIMIT ?2
