-- A user's two-step secret, whether it is on, the newest time step a code
-- was accepted for and how many recovery codes are left; no row when the
-- user has none.
SELECT t.secret, t.enabled_at_ms IS NOT NULL, t.last_step,
       (SELECT count(*) FROM console_recovery_codes r WHERE r.user_id = t.user_id)
  FROM console_two_step t
 WHERE t.user_id = ?1
