-- claimed -> starting, taken by one executor owner: zero rows means another
-- dispatcher (possibly another process) started it first.
UPDATE attempts SET state = 'starting', owner = ?1, log_path = ?2, started_at_ms = ?3
WHERE id = ?4 AND state = 'claimed'
