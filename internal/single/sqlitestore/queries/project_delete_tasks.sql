-- Project deletion: project ?1's tasks, after their triggers and revisions.
DELETE FROM tasks WHERE project_id = ?1
