-- sqlite-0004-retention: bounded storage. Finished Runs are deleted after
-- an age with their attempts, events and logs; logs alone after a shorter
-- age or over a size cap.

-- The runs rule walks finished Runs oldest first and stops at its cutoff:
-- one range of this index, however many Runs are kept.
CREATE INDEX runs_finished ON runs (finished_at_ms) WHERE state IN ('succeeded', 'failed', 'cancelled', 'timed_out');

-- The logs still on disk, oldest first, with their sizes: the logs rule
-- and the cap read only this index.
CREATE INDEX attempts_logs ON attempts (finished_at_ms, log_bytes) WHERE log_path <> '';

-- History stays append-only while its Run lives: only the events of a
-- finished Run may be deleted, and only a finished Run, and no attempt
-- that is still open. Retention deletes nothing else; these triggers make
-- any other deletion fail whoever attempts it.
DROP TRIGGER run_events_append_only_delete;

CREATE TRIGGER run_events_delete_finished_only BEFORE DELETE ON run_events
WHEN (SELECT state FROM runs WHERE id = OLD.run_id) NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out')
BEGIN SELECT RAISE(ABORT, 'run_events of an unfinished run are kept'); END;

CREATE TRIGGER runs_delete_finished_only BEFORE DELETE ON runs
WHEN OLD.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out')
BEGIN SELECT RAISE(ABORT, 'an unfinished run is kept'); END;

CREATE TRIGGER attempts_delete_ended_only BEFORE DELETE ON attempts
WHEN OLD.state IN ('claimed', 'starting', 'running')
BEGIN SELECT RAISE(ABORT, 'an open attempt is kept'); END;
