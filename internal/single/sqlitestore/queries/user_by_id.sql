-- The account a console session belongs to, with its password hash, whose
-- stamp the session must still match.
SELECT id, name, role, created_at_ms, disabled_at_ms, last_signin_at_ms, password_hash, projects
  FROM console_users
 WHERE id = ?1
