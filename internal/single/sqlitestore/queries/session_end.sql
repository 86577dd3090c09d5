-- Ends a console session (sign-out, or one found expired or no longer
-- allowed).
DELETE FROM console_sessions WHERE digest = ?1
