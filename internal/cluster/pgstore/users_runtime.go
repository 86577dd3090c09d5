package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// The runtime role serves a replica's console: it creates the first owner
// and changes a user's own password only through the SECURITY DEFINER
// functions of migration pg-0035, never with a write of its own on
// console_users (grants.go).
var (
	_ account.FirstOwner      = (*Runtime)(nil)
	_ account.PasswordChanger = (*Runtime)(nil)
)

// UsersExist reports whether any console account exists.
func (s *Runtime) UsersExist(ctx context.Context) (bool, error) {
	var exist bool
	err := s.pool.QueryRow(ctx, sqlUsersExist).Scan(&exist)
	return exist, mapErr(err, "looking for console users")
}

// UserCreateFirst stores the first console account, an owner, only while
// there is none: of two replicas' setups at once exactly one creates it.
func (s *Runtime) UserCreateFirst(ctx context.Context, u account.NewUser) (account.User, error) {
	if u.Role != account.Owner {
		return account.User{}, qlerror.New(qlerror.Invalid, "the first account is an owner, not a %s", u.Role)
	}
	var created *int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, sqlFirstOwnerCreate, u.ID, u.Name, u.Hash).Scan(&created); err != nil || created == nil {
			return err
		}
		return appendAudit(ctx, tx, created, account.Created(u, "the first owner, with the setup code"))
	})
	if err != nil {
		return account.User{}, mapErr(err, "creating the first user "+u.Name)
	}
	if created == nil {
		return account.User{}, account.ErrUsersExist()
	}
	return account.User{ID: u.ID, Name: u.Name, Role: u.Role, CreatedAtMs: *created}, nil
}

// UserChangePassword replaces the enabled account's hash only while it is
// still currentHash.
func (s *Runtime) UserChangePassword(ctx context.Context, id, currentHash, newHash, actor string) error {
	var changed bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, sqlPasswordChange, id, currentHash, newHash).Scan(&changed); err != nil || !changed {
			return err
		}
		var name string
		if err := tx.QueryRow(ctx, sqlUserNameOf, id).Scan(&name); err != nil {
			return err
		}
		return appendAudit(ctx, tx, nil, account.Change{Action: audit.UserPasswordChanged, Name: name, Actor: actor}.Entry(id))
	})
	if err != nil {
		return mapErr(err, "changing a user's password")
	}
	if !changed {
		return account.ErrPasswordChangedMeanwhile()
	}
	return nil
}
