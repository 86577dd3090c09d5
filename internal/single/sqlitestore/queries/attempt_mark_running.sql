-- starting -> running once the process exists; only from starting.
UPDATE attempts SET state = 'running', pid = ?1 WHERE id = ?2 AND state = 'starting'
