-- Removes an account (users.go ends its sessions in the same
-- transaction); returns its id, nothing when there is none.
DELETE FROM console_users WHERE name = ?1 RETURNING id
