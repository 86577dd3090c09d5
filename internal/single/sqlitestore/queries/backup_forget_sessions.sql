-- In a backup just written: the console sessions are dropped. A server
-- restored from the copy must not bring back a session signed out, or
-- ended by a password change, since the copy was taken; everyone signs in
-- again instead.
DELETE FROM console_sessions
