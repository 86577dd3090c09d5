-- How many Runs wait queued, and when the longest-waiting one was queued
-- (NULL when none is): what a handed-over database keeps queued until it
-- is taken back (`ql runs list` says so, the take-back logs it).
SELECT count(*), min(queued_at_ms) FROM runs WHERE state = 'queued'
