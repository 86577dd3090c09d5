-- Whether the user behind a console session may only set up two-step
-- sign-in: it is required and the user has none on (a key begun and not
-- confirmed is none). One statement, so the setting and the key are read
-- in one state of the database.
SELECT s.two_step_required = 1
       AND NOT EXISTS (SELECT 1 FROM console_two_step t WHERE t.user_id = ?1 AND t.enabled_at_ms IS NOT NULL)
  FROM console_settings s
 WHERE s.id = 1
