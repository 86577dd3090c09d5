-- Whether a cancel was already asked of a running run, read under the
-- write lock: asking again records nothing more.
SELECT EXISTS (SELECT 1 FROM run_events WHERE run_id = ? AND name = 'run.cancel_requested')
