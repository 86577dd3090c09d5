-- The Run holding an idempotency key, if any: a cron admission behind a
-- cursor moved back after the clock went back finds the
-- Run admitted while the clock read later (schedule.MayHaveItsRun).
SELECT id FROM runs WHERE idempotency_key = ?
