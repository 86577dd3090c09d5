-- Project deletion: the schedule rows of project ?1's triggers.
DELETE FROM trigger_schedules WHERE project_id = ?1
