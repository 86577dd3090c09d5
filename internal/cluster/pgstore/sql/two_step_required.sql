-- name: TwoStepRequired
-- Whether two-step sign-in is required of every user: the one row
-- pg-0056 inserted (admin and runtime roles).
SELECT two_step_required FROM qinglong.console_settings WHERE id

-- name: TwoStepRequire
-- Requires two-step sign-in of every user, or not (an owner's console as
-- the runtime role, `ql users require-two-step` as the admin role): no
-- row when it was so already, so an unchanged setting records nothing.
UPDATE qinglong.console_settings SET two_step_required = $1 WHERE id AND two_step_required <> $1

-- name: TwoStepWalled
-- Whether the user behind a console session may only set up two-step
-- sign-in (runtime role): it is required and the user has none on (a key
-- begun and not confirmed is none). One statement, so the setting and
-- the key are read in one snapshot on whichever replica asks.
SELECT s.two_step_required
       AND NOT EXISTS (SELECT 1 FROM qinglong.console_two_step t WHERE t.user_id = $1 AND t.enabled_at_ms IS NOT NULL)
  FROM qinglong.console_settings s
 WHERE s.id
