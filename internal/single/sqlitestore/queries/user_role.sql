-- The role of the account of a name, to say why it was not bound to
-- projects.
SELECT role FROM console_users WHERE name = ?1
