-- Ends every session of a principal, in the transaction that disables or
-- deletes its user, sets the user's password or revokes its token: the
-- sessions end at once, not at their next request.
DELETE FROM console_sessions WHERE principal = ?1
