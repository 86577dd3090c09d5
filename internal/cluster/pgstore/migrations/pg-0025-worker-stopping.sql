-- pg-0025: a session whose worker said it is stopping (sql/workers_session.sql,
-- SessionStopping).
--
-- A worker stopping on a signal stops taking work and drains its commands
-- for up to its stop timeout, which may be hours; it says so on the watch
-- it keeps while it drains. Its session then drains, as a drained
-- worker's does, so the waiting reason of a queued Run and `ql workers
-- list` see it, and stopping_at_ms records when and that it was the
-- worker's own stop, not an admin's drain. Only a session that no longer
-- takes work carries it: no statement returns a session to active.
ALTER TABLE qinglong.worker_sessions
    ADD COLUMN stopping_at_ms bigint,
    ADD CONSTRAINT worker_sessions_stopping_shape CHECK (
        stopping_at_ms IS NULL OR (stopping_at_ms >= created_at_ms AND state <> 'active')
    );
