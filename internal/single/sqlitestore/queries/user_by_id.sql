-- The account a console session belongs to.
SELECT id, name, role, created_at_ms, disabled_at_ms, last_signin_at_ms
  FROM console_users
 WHERE id = ?1
