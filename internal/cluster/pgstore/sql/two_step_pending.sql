-- The sign-ins waiting for their second step (twostep_pending.go), runtime
-- role. A row holds the digest of the form's ticket, never the ticket.
-- Every time of one is the database's clock, so a replica whose own clock
-- is off neither lengthens nor shortens the five minutes.

-- name: TwoStepPendingDeleteExpired
-- Deletes at most $1 second steps ended by now, the oldest ends first. No
-- FOR UPDATE (the runtime may not update these rows): two sign-ins at
-- once on two replicas may pick the same rows, and the second waits the
-- first's short transaction out, then finds them gone.
DELETE FROM qinglong.console_two_step_pending
 WHERE digest IN (SELECT digest FROM qinglong.console_two_step_pending WHERE expires_at_ms <= (SELECT {{now_ms}})
                   ORDER BY expires_at_ms LIMIT $1)

-- name: TwoStepPendingInsert
-- Stores a sign-in waiting for its second step, ending $5 ms from now.
INSERT INTO qinglong.console_two_step_pending (digest, user_id, password_stamp, browser, expires_at_ms)
SELECT $1, $2, $3, $4, n.ms + $5::bigint
  FROM (SELECT {{now_ms}} AS ms) n

-- name: TwoStepPendingOf
-- The second step of a ticket's digest, with the time now that its end is
-- judged by.
SELECT user_id::text, password_stamp, browser, expires_at_ms, {{now_ms}}
  FROM qinglong.console_two_step_pending WHERE digest = $1

-- name: TwoStepPendingUse
-- The once-only fence of a second step, on every replica: deletes it only
-- while it has not ended; no row for a ticket used already (by another
-- request, on any replica) or ended.
DELETE FROM qinglong.console_two_step_pending WHERE digest = $1 AND expires_at_ms > (SELECT {{now_ms}})

-- name: TwoStepPendingEnd
-- Deletes an ended second step found by a read.
DELETE FROM qinglong.console_two_step_pending WHERE digest = $1
