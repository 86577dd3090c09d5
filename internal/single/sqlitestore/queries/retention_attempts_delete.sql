-- Retention: the attempts of the Runs in the JSON array ?1 (a trigger
-- refuses an open attempt).
DELETE FROM attempts WHERE run_id IN (SELECT value FROM json_each(?1))
