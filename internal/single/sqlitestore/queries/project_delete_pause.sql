-- Project deletion: project ?1's pause record.
DELETE FROM project_pauses WHERE project_id = ?1
