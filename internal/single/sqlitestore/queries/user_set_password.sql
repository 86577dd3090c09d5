-- Replaces an account's password hash (users.go ends the sessions signed
-- in with the old one in the same transaction); returns its id, nothing
-- when there is none.
UPDATE console_users SET password_hash = ?2 WHERE name = ?1 RETURNING id
