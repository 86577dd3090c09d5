-- Every console account by name; never the password hash.
SELECT id, name, role, created_at_ms, disabled_at_ms, last_signin_at_ms, projects
  FROM console_users
 ORDER BY name
