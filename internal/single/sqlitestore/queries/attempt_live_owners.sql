-- Executor owners that hold starting or running attempts: recovery asks each
-- whether its process is still alive.
SELECT DISTINCT owner FROM attempts WHERE state IN ('starting', 'running') ORDER BY owner
