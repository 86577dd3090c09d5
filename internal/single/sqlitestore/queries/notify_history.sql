-- The states of a trigger's finished Runs admitted before this one, newest
-- first, cancelled ones passed over (they are neither failure nor
-- success), through runs_trigger (ids are time-ordered).
SELECT state FROM runs
 WHERE trigger_id = ? AND id < ? AND state IN ('succeeded', 'failed', 'timed_out', 'lost')
 ORDER BY id DESC
 LIMIT ?
