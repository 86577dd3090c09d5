-- Project deletion, after its commit: up to ?2 log files of the deleted
-- project named ?1 still to be removed (deleted_project_logs_project).
SELECT attempt_id FROM deleted_project_logs WHERE project = ?1 ORDER BY attempt_id LIMIT ?2
