-- pg-0031: the worker sessions that expired, by when they expired
-- (sql/monitor.sql, MonitorWorkerStates).
--
-- Monitoring counts the sessions that expired within a recent window, so
-- an alert sees a worker lost without its heartbeats. updated_at_ms of an
-- expired session is when the sweep expired it: every statement that
-- writes a session is fenced by a live state (sql/workers_*.sql), so
-- nothing writes it again. The index holds expired sessions only, and
-- the count reads one range of it however many sessions ended, were
-- replaced or expired long ago.
CREATE INDEX worker_sessions_expired_idx ON qinglong.worker_sessions (updated_at_ms)
    WHERE state = 'expired';
