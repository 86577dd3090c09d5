-- Project deletion: project ?1's trigger revisions (their triggers go in
-- the same transaction; both keys are deferred to its commit).
DELETE FROM trigger_revisions WHERE project_id = ?1
