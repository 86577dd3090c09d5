-- Console user accounts (users.go). Only a password's hash is ever written.

-- name: UserInsert
-- Creates an account (admin role), bound to the projects $5 (empty:
-- every project); the unique name makes a second of one name a conflict.
-- Returns the creation time.
INSERT INTO qinglong.console_users (id, name, role, password_hash, created_at_ms, projects)
VALUES ($1, $2, $3, $4, {{now_ms}}, $5)
RETURNING created_at_ms

-- name: UsersList
-- Every account by name, its projects joined by ',' as
-- account.SplitProjects reads them, and whether its two-step sign-in is
-- on (a secret begun and not confirmed is not); never the password hash
-- nor the secret.
SELECT u.id, u.name, u.role, u.created_at_ms, u.disabled_at_ms, u.last_signin_at_ms, array_to_string(u.projects, ','),
       EXISTS (SELECT 1 FROM qinglong.console_two_step t WHERE t.user_id = u.id AND t.enabled_at_ms IS NOT NULL)
  FROM qinglong.console_users u
 ORDER BY u.name

-- name: UserDisable
-- Disables an account (admin role); users.go ends its sessions in the
-- same transaction.
UPDATE qinglong.console_users
   SET disabled_at_ms = coalesce(disabled_at_ms, greatest({{now_ms}}, created_at_ms))
 WHERE name = $1
RETURNING id

-- name: UserState
-- An account's id and whether it is disabled, locked for the disable or
-- enable that reads it (admin role): one that finds the account already
-- so changes nothing and records nothing.
SELECT id, disabled_at_ms IS NOT NULL FROM qinglong.console_users WHERE name = $1 FOR UPDATE

-- name: UserEnable
-- Enables an account again with a new password hash (admin role), in one
-- statement: the new hash changes the password stamp, so a session signed
-- in before the account was disabled, and never asked since, stays ended.
UPDATE qinglong.console_users SET disabled_at_ms = NULL, password_hash = $2 WHERE name = $1 RETURNING id

-- name: UserDelete
-- Removes an account (admin role); users.go ends its sessions in the same
-- transaction.
DELETE FROM qinglong.console_users WHERE name = $1 RETURNING id

-- name: UserSetPassword
-- Replaces an account's password hash (admin role); users.go ends the
-- sessions signed in with the old one in the same transaction.
UPDATE qinglong.console_users SET password_hash = $2 WHERE name = $1 RETURNING id

-- name: UserSetProjects
-- Binds an account to projects (admin role; empty: every project), never
-- an owner to some (console_users_owner_unbound says so too): no row when
-- there is no such account or it is an owner, which UserRole tells apart.
UPDATE qinglong.console_users SET projects = $2
 WHERE name = $1 AND (cardinality($2::text[]) = 0 OR role <> 'owner')
RETURNING id

-- name: UserRole
-- The role of the account of a name, to say why it was not bound to
-- projects (admin role).
SELECT role FROM qinglong.console_users WHERE name = $1

-- name: UserCredentials
-- The account a sign-in names, with its password hash and projects joined
-- by ',' (runtime role).
SELECT id, name, role, created_at_ms, disabled_at_ms, last_signin_at_ms, password_hash, array_to_string(projects, ',')
  FROM qinglong.console_users
 WHERE name = $1

-- name: UserByID
-- The account a console session belongs to, with its password hash, whose
-- stamp the session must still match, and its projects joined by ','
-- (runtime role).
SELECT id, name, role, created_at_ms, disabled_at_ms, last_signin_at_ms, password_hash, array_to_string(projects, ',')
  FROM qinglong.console_users
 WHERE id = $1

-- name: UserSignedIn
-- Records a sign-in (runtime role, which may write only this column); the
-- time never moves back.
UPDATE qinglong.console_users
   SET last_signin_at_ms = $2
 WHERE id = $1 AND (last_signin_at_ms IS NULL OR last_signin_at_ms < $2)

-- name: UsersLockForFirst
-- Taken before the first account's insert: the mode conflicts with itself
-- and with every other insert, so two first accounts at once, or one
-- beside `ql users create`, take turns and the second sees the first.
LOCK TABLE qinglong.console_users IN SHARE ROW EXCLUSIVE MODE

-- name: UserInsertFirst
-- Creates the first account (admin role), only while there is none.
INSERT INTO qinglong.console_users (id, name, role, password_hash, created_at_ms)
SELECT $1, $2, $3, $4, {{now_ms}}
 WHERE NOT EXISTS (SELECT 1 FROM qinglong.console_users)
RETURNING created_at_ms

-- name: UsersExist
-- Whether any account exists, disabled ones included.
SELECT EXISTS (SELECT 1 FROM qinglong.console_users)

-- name: FirstOwnerCreate
-- Creates the first account, an owner, only while no account exists
-- (runtime role, through the SECURITY DEFINER function, which locks the
-- table as UsersLockForFirst does); NULL when one exists.
SELECT qinglong.console_first_owner_create($1, $2, $3)

-- name: PasswordChange
-- Replaces an enabled account's password hash only while it is still the
-- one the caller checked (runtime role, through the SECURITY DEFINER
-- function); false when it changed, or the account was disabled or
-- deleted, meanwhile.
SELECT qinglong.console_password_change($1, $2, $3)
