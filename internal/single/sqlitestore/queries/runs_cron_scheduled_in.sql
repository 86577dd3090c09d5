-- The scheduled times of a trigger's clock-admitted Runs (any revision) in
-- a window, with their ids, so a backfill never admits an occurrence a
-- second time under another revision's key and names the Run it has.
-- Reads the trigger's Runs through runs_trigger.
SELECT scheduled_for_ms, id FROM runs
WHERE trigger_id = ? AND scheduled_for_ms BETWEEN ? AND ? AND substr(idempotency_key, 1, 12) = 'ql3:cron:v1:'
