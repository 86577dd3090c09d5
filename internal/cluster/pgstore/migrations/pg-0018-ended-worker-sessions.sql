-- pg-0016: a session its worker ended when it stopped cleanly
-- (sql/workers_session.sql, SessionEnd).
--
-- A worker that drained and exits says so: its session is no longer live
-- from then on, in the workers list and the metrics, instead of for the
-- rest of its lease. Like replaced and expired, ended is final: no
-- statement moves a session out of it, and it gets no work.
ALTER TABLE qinglong.worker_sessions
    DROP CONSTRAINT worker_sessions_state_check,
    ADD CONSTRAINT worker_sessions_state_check CHECK (state IN ('active', 'draining', 'replaced', 'expired', 'ended'));
