package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var (
	_ account.Manager         = (*Store)(nil)
	_ account.Authenticator   = (*Store)(nil)
	_ account.PasswordChanger = (*Store)(nil)
)

// UserCreate stores a console account (account.Create validates and hashes).
func (s *Store) UserCreate(ctx context.Context, u account.NewUser) (account.User, error) {
	out := account.User{ID: u.ID, Name: u.Name, Role: u.Role, CreatedAtMs: s.nowMs(), Projects: u.Projects}
	err := s.write(ctx, "create user "+u.Name, durable, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qUserInsert, u.ID, u.Name, string(u.Role), u.Hash, out.CreatedAtMs, strings.Join(u.Projects, ","))
		if isUnique(err) {
			return account.ErrNameTaken(u.Name)
		}
		if err != nil {
			return err
		}
		return appendAudit(ctx, tx, out.CreatedAtMs, account.Created(u, ""))
	})
	if err != nil {
		return account.User{}, err
	}
	return out, nil
}

// UserList returns every console account by name.
func (s *Store) UserList(ctx context.Context) ([]account.User, error) {
	var out []account.User
	err := s.read(ctx, "list users", func(tx *txn) error {
		rows, err := tx.QueryContext(ctx, qUsersList)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			u, err := scanUser(rows)
			if err != nil {
				return err
			}
			out = append(out, u)
		}
		return rows.Err()
	})
	return out, err
}

// UserDisable disables the account of that name and ends its sessions;
// an account already disabled is left as it is, nothing recorded.
func (s *Store) UserDisable(ctx context.Context, name, actor string) (bool, error) {
	now := s.nowMs()
	changed := false
	err := s.write(ctx, "disable user "+name, durable, func(tx *txn) error {
		id, ok, err := userToChange(ctx, tx, name, true)
		if err != nil || !ok {
			return err
		}
		changed = true
		if _, err := tx.ExecContext(ctx, qUserDisable, name, now); err != nil {
			return err
		}
		if err := appendAudit(ctx, tx, now, account.Change{Action: audit.UserDisabled, Name: name, Actor: actor}.Entry(id)); err != nil {
			return err
		}
		return endSessionsOf(ctx, tx, websession.Signin{UserID: id}.Principal())
	})
	return changed && err == nil, err
}

// UserEnable enables the disabled account of that name with a new
// password hash; an account already enabled is left as it is, its hash
// too, nothing recorded. It has no sessions to end: disabling it ended
// them, and a disabled account cannot sign in.
func (s *Store) UserEnable(ctx context.Context, name, hash, actor string) (bool, error) {
	changed := false
	err := s.write(ctx, "enable user "+name, durable, func(tx *txn) error {
		id, ok, err := userToChange(ctx, tx, name, false)
		if err != nil || !ok {
			return err
		}
		changed = true
		if _, err := tx.ExecContext(ctx, qUserEnable, name, hash); err != nil {
			return err
		}
		return appendAudit(ctx, tx, s.nowMs(), account.Change{Action: audit.UserEnabled, Name: name, Actor: actor}.Entry(id))
	})
	return changed && err == nil, err
}

// userToChange reads the account of that name in tx: its id, and whether
// a disable (disabling) or an enable changes it; NotFound when there is
// none.
func userToChange(ctx context.Context, tx *txn, name string, disabling bool) (string, bool, error) {
	var id string
	var disabled bool
	err := tx.QueryRowContext(ctx, qUserState, name).Scan(&id, &disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, account.ErrNoSuchUser(name)
	}
	return id, err == nil && disabled != disabling, err
}

// UserDelete removes the account of that name and ends its sessions.
func (s *Store) UserDelete(ctx context.Context, name, actor string) error {
	return s.changeUserEndingSessions(ctx, "delete user "+name, account.Change{Action: audit.UserDeleted, Name: name, Actor: actor}, s.nowMs(), qUserDelete)
}

// UserSetPassword replaces the account's password hash and ends its
// sessions.
func (s *Store) UserSetPassword(ctx context.Context, name, hash, actor string) error {
	return s.changeUserEndingSessions(ctx, "set the password of user "+name, account.Change{Action: audit.UserPasswordSet, Name: name, Actor: actor}, s.nowMs(), qUserSetPassword, hash)
}

// UserChangePassword replaces the enabled account's hash only while it is
// still currentHash.
func (s *Store) UserChangePassword(ctx context.Context, id, currentHash, newHash, actor string) error {
	return s.write(ctx, "change the password of a user", durable, func(tx *txn) error {
		var name string
		err := tx.QueryRowContext(ctx, qUserChangePassword, id, currentHash, newHash).Scan(&name)
		if errors.Is(err, sql.ErrNoRows) {
			return account.ErrPasswordChangedMeanwhile()
		}
		if err != nil {
			return err
		}
		return appendAudit(ctx, tx, s.nowMs(), account.Change{Action: audit.UserPasswordChanged, Name: name, Actor: actor}.Entry(id))
	})
}

// changeUserEndingSessions runs q (which returns the account's id) on the
// account c names, records c at nowMs and deletes the account's console
// sessions in the same transaction: they end at once, not at their next
// request, and a change that does not commit ends none and records none.
func (s *Store) changeUserEndingSessions(ctx context.Context, what string, c account.Change, nowMs int64, q string, args ...any) error {
	return s.write(ctx, what, durable, func(tx *txn) error {
		var id string
		err := tx.QueryRowContext(ctx, q, append([]any{c.Name}, args...)...).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return account.ErrNoSuchUser(c.Name)
		}
		if err != nil {
			return err
		}
		if err := appendAudit(ctx, tx, nowMs, c.Entry(id)); err != nil {
			return err
		}
		return endSessionsOf(ctx, tx, websession.Signin{UserID: id}.Principal())
	})
}

// UserSetProjects binds the account of that name to projects; its
// sessions stand, each request reading its projects again.
func (s *Store) UserSetProjects(ctx context.Context, name string, projects []string, actor string) error {
	return s.write(ctx, "bind user "+name+" to projects", durable, func(tx *txn) error {
		var id string
		err := tx.QueryRowContext(ctx, qUserSetProjects, name, strings.Join(projects, ",")).Scan(&id)
		if err == nil {
			c := account.Change{Action: audit.UserProjectsSet, Name: name, Actor: actor, Note: account.ProjectsNote(projects)}
			return appendAudit(ctx, tx, s.nowMs(), c.Entry(id))
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var role string
		switch err := tx.QueryRowContext(ctx, qUserRole, name).Scan(&role); {
		case errors.Is(err, sql.ErrNoRows):
			return account.ErrNoSuchUser(name)
		case err != nil:
			return err
		}
		return account.ErrOwnerBound()
	})
}

// UserCredentials returns the account a sign-in names with its hash.
func (s *Store) UserCredentials(ctx context.Context, name string) (account.User, string, error) {
	var u account.User
	var hash string
	err := s.read(ctx, "sign in", func(tx *txn) error {
		var err error
		u, hash, err = account.ScanWithHash(tx.QueryRowContext(ctx, qUserCredentials, name), sql.ErrNoRows)
		return err
	})
	return u, hash, err
}

// UserByID returns the account a session belongs to.
func (s *Store) UserByID(ctx context.Context, id string) (account.User, error) {
	var u account.User
	err := s.read(ctx, "check a console session", func(tx *txn) error {
		var err error
		u, _, err = account.ScanWithHash(tx.QueryRowContext(ctx, qUserByID, id), sql.ErrNoRows)
		return err
	})
	return u, err
}

// UserSignedIn records a sign-in at atMs.
func (s *Store) UserSignedIn(ctx context.Context, id string, atMs int64) error {
	return s.write(ctx, "record a sign-in", routine, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, qUserSignedIn, id, atMs)
		return err
	})
}

// scanUser reads a row of the list of accounts.
func scanUser(r scanner) (account.User, error) {
	var u account.User
	var role, projects string
	err := r.Scan(&u.ID, &u.Name, &role, &u.CreatedAtMs, &u.DisabledAtMs, &u.LastSigninAtMs, &projects, &u.TwoStepOn)
	u.Role, u.Projects = account.Role(role), account.SplitProjects(projects)
	return u, err
}
