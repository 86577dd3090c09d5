-- Retention deletes a lost Run as it deletes a finished one, once it has
-- been lost for the runs rule's age (its finish time is when it was found
-- lost): a lost Run waits for a decision, but one nobody makes must not
-- keep its attempts, events and logs for ever on a server that stops with
-- commands running every day. The runs rule's index and the triggers that
-- refuse every other deletion take lost Runs in; an open attempt is still
-- never deleted.
DROP INDEX runs_finished;
CREATE INDEX runs_finished ON runs (finished_at_ms) WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost');

DROP TRIGGER run_events_delete_finished_only;
CREATE TRIGGER run_events_delete_ended_only BEFORE DELETE ON run_events
WHEN (SELECT state FROM runs WHERE id = OLD.run_id) NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
BEGIN SELECT RAISE(ABORT, 'run_events of a run that has not ended are kept'); END;

DROP TRIGGER runs_delete_finished_only;
CREATE TRIGGER runs_delete_ended_only BEFORE DELETE ON runs
WHEN OLD.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
BEGIN SELECT RAISE(ABORT, 'a run that has not ended is kept'); END;
