package account

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// FirstOwner is what a server needs of the store to let the first owner
// be created in the console while no account exists.
type FirstOwner interface {
	// UsersExist reports whether any account exists, disabled ones
	// included.
	UsersExist(ctx context.Context) (bool, error)
	// UserCreateFirst stores the account only while no account exists,
	// in one write, so two creations at once (or one beside `ql users
	// create`) leave exactly one first account; Conflict (ErrUsersExist)
	// when one exists.
	UserCreateFirst(ctx context.Context, u NewUser) (User, error)
}

// CreateFirstOwner validates the first owner's name and password and
// stores the account with its password's hash, which it returns too (a
// session keeps its stamp).
func CreateFirstOwner(ctx context.Context, f FirstOwner, actor, id, name, password string) (User, string, error) {
	if err := validate.Name("user name", name); err != nil {
		return User{}, "", err
	}
	if err := CheckNewPassword(name, password); err != nil {
		return User{}, "", err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return User{}, "", err
	}
	u, err := f.UserCreateFirst(ctx, NewUser{ID: id, Name: name, Role: Owner, Hash: hash, Actor: actor})
	return u, hash, err
}

// ErrUsersExist is the refusal of a first owner once an account exists.
func ErrUsersExist() error {
	return qlerror.New(qlerror.Conflict, "an account exists already, so there is no first owner to create; sign in, or ask an owner for an account")
}
