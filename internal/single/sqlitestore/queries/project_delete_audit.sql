-- Project deletion: the pause and resume records of project ?1's triggers.
DELETE FROM trigger_schedule_audit WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)
