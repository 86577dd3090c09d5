package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/account"
)

var _ account.FirstOwner = (*Admin)(nil)

// UsersExist reports whether any console account exists.
func (a *Admin) UsersExist(ctx context.Context) (bool, error) {
	var exist bool
	err := a.pool.QueryRow(ctx, sqlUsersExist).Scan(&exist)
	return exist, mapErr(err, "looking for console users")
}

// UserCreateFirst stores the first console account, only while there is
// none: the table lock makes the check and the insert one step against
// every other insert.
func (a *Admin) UserCreateFirst(ctx context.Context, u account.NewUser) (account.User, error) {
	out := account.User{ID: u.ID, Name: u.Name, Role: u.Role}
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlUsersLockFirst); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, sqlUserInsertFirst, u.ID, u.Name, string(u.Role), u.Hash).Scan(&out.CreatedAtMs); err != nil {
			return err
		}
		return appendAudit(ctx, tx, &out.CreatedAtMs, account.Created(u, "the first owner"))
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return account.User{}, account.ErrUsersExist()
	}
	if err != nil {
		return account.User{}, mapErr(err, "creating the first user "+u.Name)
	}
	return out, nil
}
