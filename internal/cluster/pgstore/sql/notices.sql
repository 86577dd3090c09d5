-- The notices replicas send each other through LISTEN/NOTIFY (notices.go).
-- A notice only wakes a loop early: what the loop then does is decided by
-- the database as if it had woken on its own cadence, so a lost notice
-- costs at most that cadence.

-- name: NotifyRunsQueued
-- Wakes the pulls waiting on any replica. Sent outside the admission
-- transaction, after its COMMIT: a NOTIFY inside a transaction takes a
-- database-wide lock at commit and would serialise every admission.
SELECT pg_notify($1, '')

-- name: NotifySessionChanged
-- Wakes the pulls waiting on any replica, a worker's watch included: a
-- session stopped being active (replaced, or its worker revoked or
-- drained). The payload is what tells a listener it is more than Runs
-- queued; a replica older than the payload treats it as any wake-up.
-- Sent after the COMMIT, as NotifyRunsQueued.
SELECT pg_notify($1, $2)

-- name: NotifyStopAsked
-- Wakes the waiting pull or watch of each worker session in $2 (one
-- notice per session, its id the payload): a stop was asked of an attempt
-- the session holds. Sent after the COMMIT that recorded the stops, as
-- NotifyRunsQueued; PostgreSQL folds identical notices of one statement.
SELECT pg_notify($1, s) FROM unnest($2::text[]) s

-- name: NotifySchedulesChanged
-- Wakes every replica's scheduler after a change of the schedule rows a
-- claim may take (a publish, a task's new head, archiving or reactivating
-- a project, a pause or resume). Sent inside the changing transaction, so
-- it is delivered only if that transaction commits, and only after its
-- rows are visible to the claim it causes. Unlike the admission's, these
-- transactions are rare, so the lock a NOTIFY takes at commit (taken only
-- by notifying transactions) serialises nothing that matters.
SELECT pg_notify($1, '')

-- name: ListenRunsQueued
-- Subscribes the dedicated listening connection to the runs-queued notices.
LISTEN qinglong_runs_queued

-- name: ListenStopAsked
-- Subscribes the same connection to the stop-asked notices.
LISTEN qinglong_stop_asked

-- name: ListenSchedulesChanged
-- Subscribes the same connection to the schedules-changed notices, last:
-- once it has run, the listener hears every channel.
LISTEN qinglong_schedules_changed
