-- Every console account by name, and whether its two-step sign-in is on
-- (a secret begun and not confirmed is not); never the password hash nor
-- the secret.
SELECT u.id, u.name, u.role, u.created_at_ms, u.disabled_at_ms, u.last_signin_at_ms, u.projects,
       EXISTS (SELECT 1 FROM console_two_step t WHERE t.user_id = u.id AND t.enabled_at_ms IS NOT NULL)
  FROM console_users u
 ORDER BY u.name
