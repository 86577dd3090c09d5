-- Two-step sign-in (twostep.go): a user's TOTP secret and recovery codes.
-- The runtime role, which serves the console, keeps them; the admin role
-- only resets them (`ql users reset-two-step`).

-- name: TwoStepOf
-- A user's two-step secret, whether it is on, the newest time step a code
-- was accepted for and how many recovery codes are left; no row when the
-- user has none.
SELECT t.secret, t.enabled_at_ms IS NOT NULL, t.last_step,
       (SELECT count(*) FROM qinglong.console_recovery_codes r WHERE r.user_id = t.user_id)
  FROM qinglong.console_two_step t
 WHERE t.user_id = $1

-- name: TwoStepBegin
-- Stores a secret waiting for its first code, in place of one waiting
-- already, never over a secret that is on: no row changes when it is on.
INSERT INTO qinglong.console_two_step (user_id, secret) VALUES ($1, $2)
    ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret
 WHERE qinglong.console_two_step.enabled_at_ms IS NULL

-- name: TwoStepConfirm
-- Turns the waiting secret on only while it is still the one whose code
-- was checked ($2), the code's time step ($3) used with it: no row changes
-- when another secret waits, none does, or it is on already.
UPDATE qinglong.console_two_step SET enabled_at_ms = {{now_ms}}, last_step = greatest(last_step, $3)
 WHERE user_id = $1 AND secret = $2 AND enabled_at_ms IS NULL

-- name: RecoveryCodeInsert
-- Stores the recovery codes' digests of a user whose two-step is turned
-- on in the same transaction.
INSERT INTO qinglong.console_recovery_codes (user_id, digest) SELECT $1, unnest($2::text[])

-- name: TwoStepUseStep
-- The replay fence: records that a code of time step $2 was accepted only
-- while two-step is on and no code of that step or a later one was, on any
-- replica; no row changes for a code used already.
UPDATE qinglong.console_two_step SET last_step = $2
 WHERE user_id = $1 AND enabled_at_ms IS NOT NULL AND last_step < $2

-- name: RecoveryCodeUse
-- Spends a recovery code: deleting its row is what makes it usable once;
-- no row for a code used already or never given.
DELETE FROM qinglong.console_recovery_codes WHERE user_id = $1 AND digest = $2

-- name: TwoStepOff
-- Turns two-step off, its recovery codes deleted with it (ON DELETE
-- CASCADE); no row when it is not on.
DELETE FROM qinglong.console_two_step WHERE user_id = $1 AND enabled_at_ms IS NOT NULL

-- name: TwoStepReset
-- An operator's reset (admin role): forgets the secret, on or waiting, of
-- the account of a name with its recovery codes; returns the account's id
-- and whether it was on, which alone is recorded.
DELETE FROM qinglong.console_two_step t USING qinglong.console_users u
 WHERE u.name = $1 AND t.user_id = u.id
RETURNING u.id, t.enabled_at_ms IS NOT NULL

-- name: UserIDOf
-- The id of the account of a name, to tell a reset of a user without
-- two-step from one of no user (admin role).
SELECT id FROM qinglong.console_users WHERE name = $1
