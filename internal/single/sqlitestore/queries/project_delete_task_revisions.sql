-- Project deletion: project ?1's task revisions, after everything naming
-- them (their tasks go in the same transaction; the tasks' key is deferred).
DELETE FROM task_revisions WHERE project_id = ?1
