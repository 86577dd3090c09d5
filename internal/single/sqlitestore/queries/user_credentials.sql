-- The account a sign-in names, with its password hash.
SELECT id, name, role, created_at_ms, disabled_at_ms, last_signin_at_ms, password_hash, projects
  FROM console_users
 WHERE name = ?1
