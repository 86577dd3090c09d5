-- The names of a project's triggers bound to any of the tasks ?2 (a JSON
-- array of task ids), so an apply that changes a task carries the triggers
-- its file leaves out to the task's new revision. A trigger never moves to
-- another task, so the head's task_id is the task of every revision.
SELECT t.name
FROM triggers t
WHERE t.project_id = ?1 AND t.task_id IN (SELECT value FROM json_each(?2))
ORDER BY t.name
