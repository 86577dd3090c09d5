package pgstore

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/account"
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
	if err := s.pool.QueryRow(ctx, sqlFirstOwnerCreate, u.ID, u.Name, u.Hash).Scan(&created); err != nil {
		return account.User{}, mapErr(err, "creating the first user "+u.Name)
	}
	if created == nil {
		return account.User{}, account.ErrUsersExist()
	}
	return account.User{ID: u.ID, Name: u.Name, Role: u.Role, CreatedAtMs: *created}, nil
}

// UserChangePassword replaces the enabled account's hash only while it is
// still currentHash.
func (s *Runtime) UserChangePassword(ctx context.Context, id, currentHash, newHash string) error {
	var changed bool
	if err := s.pool.QueryRow(ctx, sqlPasswordChange, id, currentHash, newHash).Scan(&changed); err != nil {
		return mapErr(err, "changing a user's password")
	}
	if !changed {
		return account.ErrPasswordChangedMeanwhile()
	}
	return nil
}
