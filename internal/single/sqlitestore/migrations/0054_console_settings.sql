-- The console's settings of the whole installation, one row: whether
-- two-step sign-in is required of every user (docs/console.md, "Two-step
-- sign-in for everyone"). The console's wall reads it at each request of
-- a user's session, so a change holds from the next page on; an owner's
-- change on the account page and `ql users require-two-step` write it
-- with their audit record. It starts off: each user chooses, as before.
CREATE TABLE console_settings (
    id                INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    two_step_required INTEGER NOT NULL DEFAULT 0 CHECK (two_step_required IN (0, 1))
) STRICT;

INSERT INTO console_settings (id) VALUES (1);
