-- A project at its maxRunning holds its queued Runs back (migration
-- 0045), and the dispatcher's queue, read every round in the order of
-- attempts_pending, walked every pending attempt of such a project to pass
-- over it: a capped backlog of 10,000 queued Runs cost each round tens of
-- milliseconds, for as long as it waited. An attempt now carries its Run's
-- project, and attempts_pending_project orders the pending attempts of
-- each project as attempts_pending orders them all, so a round reads each
-- project not at its cap from its own first attempt and never opens a
-- capped project's (attempts_pending.sql).
ALTER TABLE attempts ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
-- Every attempt already written takes its Run's project: the queued ones
-- for the dispatcher, the others so that the column means the same on
-- every row.
UPDATE attempts SET project_id = (SELECT r.project_id FROM runs r WHERE r.id = attempts.run_id);
CREATE INDEX attempts_pending_project ON attempts (project_id, backfilled, coalesce(place_of, id), id)
WHERE state = 'claimed' AND available_at_ms IS NULL;
-- Every way an attempt is written (an admission, a backfill, a page of
-- admissions, a retry's next attempt) names its Run's project, which a
-- test reads each statement for and checks on every path
-- (TestEveryAttemptCarriesItsRunsProject). No insert trigger checks it
-- against the Run: its look-up of the Run cost each admission about a
-- twelfth of its CPU (BENCHMARKS.md, "Single-node dispatch beside a
-- capped project's backlog"). A Run never changes project, nor an attempt
-- its Run, which costs an admission nothing to hold:
CREATE TRIGGER attempts_project_stays BEFORE UPDATE OF project_id, run_id ON attempts
WHEN NEW.project_id IS NOT OLD.project_id OR NEW.run_id IS NOT OLD.run_id
BEGIN
  SELECT RAISE(ABORT, 'an attempt keeps its run and its project');
END;
