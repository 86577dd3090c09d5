-- In a backup just written: the sign-ins waiting for their second step are
-- dropped with the sessions, as the live server's: a server restored from
-- the copy must not take a ticket used since the copy was taken.
DELETE FROM console_two_step_pending
