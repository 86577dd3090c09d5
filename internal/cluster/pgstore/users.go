package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/websession"
)

var (
	_ account.Manager       = (*Admin)(nil)
	_ account.Authenticator = (*Runtime)(nil)
)

// UserCreate stores a console account (account.Create validates and hashes).
func (a *Admin) UserCreate(ctx context.Context, u account.NewUser) (account.User, error) {
	out := account.User{ID: u.ID, Name: u.Name, Role: u.Role, Projects: u.Projects}
	projects := u.Projects
	if projects == nil {
		projects = []string{}
	}
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, sqlUserInsert, u.ID, u.Name, string(u.Role), u.Hash, projects).Scan(&out.CreatedAtMs); err != nil {
			return err
		}
		return appendAudit(ctx, tx, &out.CreatedAtMs, account.Created(u, ""))
	})
	if sqlState(err) == stateUniqueViolation {
		return account.User{}, account.ErrNameTaken(u.Name)
	}
	if err != nil {
		return account.User{}, mapErr(err, "creating user "+u.Name)
	}
	return out, nil
}

// UserList returns every console account by name.
func (a *Admin) UserList(ctx context.Context) ([]account.User, error) {
	rows, err := a.pool.Query(ctx, sqlUsersList)
	if err != nil {
		return nil, mapErr(err, "listing users")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (account.User, error) { return scanUser(row) })
	return out, mapErr(err, "listing users")
}

// UserDisable disables the account of that name and ends its sessions;
// an account already disabled is left as it is, nothing recorded.
func (a *Admin) UserDisable(ctx context.Context, name, actor string) (bool, error) {
	return a.changeUserOnce(ctx, "disabling user "+name, account.Change{Action: audit.UserDisabled, Name: name, Actor: actor}, true, sqlUserDisable)
}

// UserEnable enables the disabled account of that name with a new
// password hash; an account already enabled is left as it is, its hash
// too, nothing recorded. It has no sessions to end: disabling it ended
// them, and a disabled account cannot sign in.
func (a *Admin) UserEnable(ctx context.Context, name, hash, actor string) (bool, error) {
	return a.changeUserOnce(ctx, "enabling user "+name, account.Change{Action: audit.UserEnabled, Name: name, Actor: actor}, false, sqlUserEnable, hash)
}

// changeUserOnce is changeUser for a disable (disabling) or an enable:
// the account's row is locked and read first, and one already so is left
// as it is, nothing recorded (false).
func (a *Admin) changeUserOnce(ctx context.Context, what string, c account.Change, disabling bool, q string, args ...any) (bool, error) {
	changed := false
	err := a.inUserTx(ctx, what, c.Name, func(tx pgx.Tx) error {
		var id string
		var disabled bool
		if err := tx.QueryRow(ctx, sqlUserState, c.Name).Scan(&id, &disabled); err != nil || disabled == disabling {
			return err
		}
		changed = true
		return changeUserIn(ctx, tx, c, disabling, q, args...)
	})
	return changed && err == nil, err
}

// UserDelete removes the account of that name and ends its sessions.
func (a *Admin) UserDelete(ctx context.Context, name, actor string) error {
	return a.changeUser(ctx, "deleting user "+name, account.Change{Action: audit.UserDeleted, Name: name, Actor: actor}, true, sqlUserDelete)
}

// UserSetPassword replaces the account's password hash and ends its
// sessions.
func (a *Admin) UserSetPassword(ctx context.Context, name, hash, actor string) error {
	return a.changeUser(ctx, "setting the password of user "+name, account.Change{Action: audit.UserPasswordSet, Name: name, Actor: actor}, true, sqlUserSetPassword, hash)
}

// changeUser runs q on the account c names, records c and, when
// endSessions, deletes the account's console sessions in the same
// transaction: they end on every replica at once, not at their next
// request, and a change that does not commit ends none and records none.
func (a *Admin) changeUser(ctx context.Context, what string, c account.Change, endSessions bool, q string, args ...any) error {
	return a.inUserTx(ctx, what, c.Name, func(tx pgx.Tx) error {
		return changeUserIn(ctx, tx, c, endSessions, q, args...)
	})
}

// changeUserIn is changeUser's work in tx.
func changeUserIn(ctx context.Context, tx pgx.Tx, c account.Change, endSessions bool, q string, args ...any) error {
	var id string
	if err := tx.QueryRow(ctx, q, append([]any{c.Name}, args...)...).Scan(&id); err != nil {
		return err
	}
	if err := appendAudit(ctx, tx, nil, c.Entry(id)); err != nil {
		return err
	}
	if !endSessions {
		return nil
	}
	_, err := tx.Exec(ctx, sqlConsoleSessionEndPrincipal, websession.Signin{UserID: id}.Principal())
	return err
}

// inUserTx runs fn in one transaction on the account named name: a row
// fn does not find is NotFound.
func (a *Admin) inUserTx(ctx context.Context, what, name string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, a.pool, fn)
	if errors.Is(err, pgx.ErrNoRows) {
		return account.ErrNoSuchUser(name)
	}
	return mapErr(err, what)
}

// UserSetProjects binds the account of that name to projects; its
// sessions stand, each request reading its projects again.
func (a *Admin) UserSetProjects(ctx context.Context, name string, projects []string, actor string) error {
	c := account.Change{Action: audit.UserProjectsSet, Name: name, Actor: actor, Note: account.ProjectsNote(projects)}
	if projects == nil {
		projects = []string{}
	}
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, sqlUserSetProjects, name, projects).Scan(&id); err != nil {
			return err
		}
		return appendAudit(ctx, tx, nil, c.Entry(id))
	})
	if !errors.Is(err, pgx.ErrNoRows) {
		return mapErr(err, "binding user "+name+" to projects")
	}
	var role string
	switch err := a.pool.QueryRow(ctx, sqlUserRole, name).Scan(&role); {
	case errors.Is(err, pgx.ErrNoRows):
		return account.ErrNoSuchUser(name)
	case err != nil:
		return mapErr(err, "binding user "+name+" to projects")
	}
	return account.ErrOwnerBound()
}

// UserCredentials returns the account a sign-in names with its hash.
func (s *Runtime) UserCredentials(ctx context.Context, name string) (account.User, string, error) {
	u, hash, err := account.ScanWithHash(s.pool.QueryRow(ctx, sqlUserCredentials, name), pgx.ErrNoRows)
	return u, hash, mapErr(err, "signing a user in")
}

// UserByID returns the account a session belongs to.
func (s *Runtime) UserByID(ctx context.Context, id string) (account.User, error) {
	u, _, err := account.ScanWithHash(s.pool.QueryRow(ctx, sqlUserByID, id), pgx.ErrNoRows)
	return u, mapErr(err, "checking a console session")
}

// UserSignedIn records a sign-in at atMs.
func (s *Runtime) UserSignedIn(ctx context.Context, id string, atMs int64) error {
	_, err := s.pool.Exec(ctx, sqlUserSignedIn, id, atMs)
	return mapErr(err, "recording a sign-in")
}

// scanUser reads a row of the list of accounts.
func scanUser(row pgx.Row) (account.User, error) {
	var u account.User
	var role, projects string
	err := row.Scan(&u.ID, &u.Name, &role, &u.CreatedAtMs, &u.DisabledAtMs, &u.LastSigninAtMs, &projects, &u.TwoStepOn)
	u.Role, u.Projects = account.Role(role), account.SplitProjects(projects)
	return u, err
}
