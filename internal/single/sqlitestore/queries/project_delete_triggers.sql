-- Project deletion: project ?1's triggers, after everything naming them.
DELETE FROM triggers WHERE project_id = ?1
