-- How many Runs wait queued: what a handed-over database keeps queued
-- until it is taken back (`ql runs list` says so).
SELECT count(*) FROM runs WHERE state = 'queued'
