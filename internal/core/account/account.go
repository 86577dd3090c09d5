// Package account is the profile-neutral model of console user accounts:
// their roles, their password hashes and the store contracts both adapters
// implement. A user signs in to the console with a name and a password; its
// role maps to the API token scope it acts with.
package account

import (
	"context"
	"errors"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Role is what a user may do in the console.
type Role string

// The three roles, each acting with one token scope.
const (
	// Viewer sees every page (scope read).
	Viewer Role = "viewer"
	// Operator also pauses, resumes, runs now and cancels (scope operate).
	Operator Role = "operator"
	// Owner may do everything, tokens included (scope admin).
	Owner Role = "owner"
)

// Roles lists the roles from least to most privileged.
var Roles = []Role{Viewer, Operator, Owner}

// Scope is the token scope a role acts with; "" for an unknown role, which
// allows nothing.
func (r Role) Scope() apitoken.Scope {
	switch r {
	case Viewer:
		return apitoken.Read
	case Operator:
		return apitoken.Operate
	case Owner:
		return apitoken.Admin
	}
	return ""
}

// ParseRole checks a role given by a user.
func ParseRole(raw string) (Role, error) {
	r := Role(raw)
	if r.Scope() == "" {
		return "", qlerror.New(qlerror.Invalid, "role %q is not one of viewer, operator, owner", raw)
	}
	return r, nil
}

// User is one account as stored, without its password hash.
type User struct {
	ID             string
	Name           string
	Role           Role
	CreatedAtMs    int64
	DisabledAtMs   *int64
	LastSigninAtMs *int64
	// PasswordStamp is the PasswordStamp of the account's current hash, set
	// by the reads that sign a user in and check a session
	// (Authenticator); a list of accounts leaves it empty.
	PasswordStamp string
	// Projects are the projects the user is bound to, sorted: its console
	// shows and acts on those only. Empty (never for an owner) is every
	// project.
	Projects []string
	// TwoStepOn says the user signs in with a two-step code after the
	// password, set by a list of accounts (Manager.UserList); a secret
	// begun and not yet confirmed is not on.
	TwoStepOn bool
}

// State of a user.
const (
	StateActive   = "active"
	StateDisabled = "disabled"
)

// State is the user's state.
func (u User) State() string {
	if u.DisabledAtMs != nil {
		return StateDisabled
	}
	return StateActive
}

// Row is one account as both adapters select it for a sign-in or a session
// check: id, name, role, created_at_ms, disabled_at_ms, last_signin_at_ms,
// password_hash, and the projects it is bound to joined by ','.
type Row interface {
	Scan(dest ...any) error
}

// ScanWithHash reads a Row into the account with its PasswordStamp and
// returns its hash too; noRows is the adapter's error for a missing row,
// which is NotFound.
func ScanWithHash(row Row, noRows error) (User, string, error) {
	var u User
	var role, hash string
	var projects string
	err := row.Scan(&u.ID, &u.Name, &role, &u.CreatedAtMs, &u.DisabledAtMs, &u.LastSigninAtMs, &hash, &projects)
	if errors.Is(err, noRows) {
		return User{}, "", qlerror.New(qlerror.NotFound, "no such user")
	}
	if err != nil {
		return User{}, "", err
	}
	u.Role, u.PasswordStamp, u.Projects = Role(role), PasswordStamp(hash), SplitProjects(projects)
	return u, hash, nil
}

// NewUser is an account to create; Hash is its password's (HashPassword).
type NewUser struct {
	ID   string
	Name string
	Role Role
	Hash string
	// Actor is who creates it, as the audit trail names them.
	Actor string
	// Projects are the projects it is bound to (NormalProjects'), none
	// for every project.
	Projects []string
}

// Manager creates, lists, disables and deletes accounts and sets their
// passwords: the admin's work (on the cluster, the admin role). Disabling,
// deleting and setting a password delete the account's console sessions
// (websession) in the same transaction, so they end at once on every
// server; NotFound changes and ends nothing. It requires two-step
// sign-in of every user, or not, as an owner does on the account page
// (TwoStepPolicy).
type Manager interface {
	TwoStepPolicy
	// UserCreate stores an account; Conflict when the name is taken.
	UserCreate(ctx context.Context, u NewUser) (User, error)
	// UserList returns every account by name, disabled ones included.
	UserList(ctx context.Context) ([]User, error)
	// UserDisable disables the account and says it did; NotFound when
	// there is none. Disabling a disabled account changes and records
	// nothing, and says so (false).
	UserDisable(ctx context.Context, name, actor string) (bool, error)
	// UserEnable enables the disabled account again with a new password
	// hash (so a new PasswordStamp: no session from before it was
	// disabled comes back) and says it did; NotFound when there is none.
	// Enabling an active account changes and records nothing, its hash
	// neither, and says so (false).
	UserEnable(ctx context.Context, name, hash, actor string) (bool, error)
	// UserDelete removes the account; NotFound when there is none.
	UserDelete(ctx context.Context, name, actor string) error
	// UserSetPassword replaces the account's password hash, and so its
	// PasswordStamp; NotFound when there is none.
	UserSetPassword(ctx context.Context, name, hash, actor string) error
	// UserSetProjects binds the account to projects (NormalProjects'),
	// or to every project when there are none; NotFound when there is no
	// account, ErrOwnerBound for an owner given projects. Its sessions
	// stand: each request reads the account again, and so its projects.
	UserSetProjects(ctx context.Context, name string, projects []string, actor string) error
	// UserResetTwoStep turns the account's two-step sign-in off, its
	// secret and recovery codes forgotten, and ends its sessions: the
	// answer to a lost phone (ResetOn, recorded). A secret begun and
	// never confirmed is forgotten alone (ResetWaiting, nothing
	// recorded: it never signed anyone in); ResetNothing when there was
	// none. NotFound when there is no account.
	UserResetTwoStep(ctx context.Context, name, actor string) (TwoStepReset, error)
}

// Authenticator is what a server needs of the store to sign a user in and
// keep its session honest (on the cluster, the runtime role, which may
// only read accounts and record a sign-in).
type Authenticator interface {
	// UserCredentials returns the account of that name with its password
	// hash and that hash's stamp, whatever its state; NotFound when there
	// is none.
	UserCredentials(ctx context.Context, name string) (User, string, error)
	// UserByID returns the account with its current password stamp,
	// whatever its state; NotFound once it is deleted.
	UserByID(ctx context.Context, id string) (User, error)
	// UserSignedIn records a sign-in at atMs (never moving the time back).
	UserSignedIn(ctx context.Context, id string, atMs int64) error
}

// Create validates a new account and stores it with its password's hash,
// bound to projects (none: every project).
func Create(ctx context.Context, m Manager, actor, id, name string, role Role, password string, projects ...string) (User, error) {
	if err := validate.Name("user name", name); err != nil {
		return User{}, err
	}
	if role.Scope() == "" {
		return User{}, qlerror.New(qlerror.Invalid, "role %q is not one of viewer, operator, owner", role)
	}
	bound, err := NormalProjects(role, projects)
	if err != nil {
		return User{}, err
	}
	if err := CheckNewPassword(name, password); err != nil {
		return User{}, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return User{}, err
	}
	return m.UserCreate(ctx, NewUser{ID: id, Name: name, Role: role, Hash: hash, Actor: actor, Projects: bound})
}

// SetPassword checks and hashes a new password and stores it.
func SetPassword(ctx context.Context, m Manager, actor, name, password string) error {
	if err := CheckNewPassword(name, password); err != nil {
		return err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	return m.UserSetPassword(ctx, name, hash, actor)
}

// Enable checks and hashes a new password and enables the disabled
// account with it; false when the account was enabled already, which
// keeps its password.
func Enable(ctx context.Context, m Manager, actor, name, password string) (bool, error) {
	if err := CheckNewPassword(name, password); err != nil {
		return false, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return false, err
	}
	return m.UserEnable(ctx, name, hash, actor)
}

// ErrNameTaken is the message of a create whose name an account holds.
func ErrNameTaken(name string) error {
	return qlerror.New(qlerror.Conflict, "a user named %q exists; choose another name or delete it first (`ql users delete %s`)", name, name)
}

// ErrNoSuchUser is the message of a change to a name no account has.
func ErrNoSuchUser(name string) error {
	return qlerror.New(qlerror.NotFound, "no user is named %q; list them with `ql users list`", name)
}
