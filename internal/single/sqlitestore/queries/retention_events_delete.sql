-- Retention: the events of the Runs in the JSON array ?1 (a trigger
-- refuses the events of an unfinished Run).
DELETE FROM run_events WHERE run_id IN (SELECT value FROM json_each(?1))
