-- pg-0056: the console's settings of the whole installation, one row:
-- whether two-step sign-in is required of every user (docs/console.md,
-- "Two-step sign-in for everyone"). Every replica's console wall reads it
-- at each request of a user's session, so a change holds on every replica
-- from the next page on. An owner changes it on a replica's account page
-- (the runtime role) and an operator with `ql users require-two-step`
-- (the admin role), each with its audit record in the same transaction;
-- no role inserts or deletes the row (grants.go). It starts off: each user
-- chooses, as before.
CREATE TABLE qinglong.console_settings (
    id                boolean NOT NULL PRIMARY KEY DEFAULT true CHECK (id),
    two_step_required boolean NOT NULL DEFAULT false
);

INSERT INTO qinglong.console_settings (id) VALUES (true);
